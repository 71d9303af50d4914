"""Paper A, Figure 1 and its text (Section 5.1): the agreement heat map and its statements.

Everything the page ``agreement_heatmap`` computes lives here: the sample and its agreement
matrix (:func:`sample`), the heat map (:func:`heat_map`), the groups of Figure 1 (right)
(:func:`group_tables`), the pairs that agree fully (:func:`full_agreement`) or disagree most
(:func:`disagreement`), the interval of each ratio (:func:`intervals`), the two sampling
protocols (:func:`protocol_comparison`), the repetition over seeds (:func:`over_seeds`) and one
check per ledger claim, each receiving its claim's entry (thresholds, margins, seeds and the
paper's setting in ``claim.params``, errata through ``claim.finding(role)``) and returning
:class:`rankbook.ledger.claims.Evidence`:

* :func:`check_figure1`: the heat map, recomputed (nothing published to compare);
* :func:`check_dcg_ndcg`: DCG and nDCG never disagree (true by definition);
* :func:`check_consistent_ratio`: two consistent metrics have the ratio 1 (true by definition);
* :func:`check_inconsistencies`: inconsistent pairs of metrics are easy to find;
* :func:`check_groups`: metrics similar in theory agree highly, under three readings side by
  side;
* :func:`check_even`: as many pairs agree highly as disagree highly, decided by an equivalence
  test (TOST) with a margin fixed in advance;
* :func:`check_other`: other n and k give similar pictures (the page's own setting is not one
  of the cases).

The section helpers return a :class:`rankbook.ledger.claims.Section` (or add to the evidence):
the figures, tables and Markdown the page shows, in order, with reader names
(:func:`rankbook.ledger.names.display`) and no ids.
"""

from __future__ import annotations

from dataclasses import dataclass
from fractions import Fraction
from typing import Sequence

import numpy as np
import pandas as pd

from rankbook.ledger import claims
from rankbook.ledger.names import display
from rankbook.papers.paper_a import tables as T
from rankbook.ledger.limits import within_memory

#: The three groups of Figure 1 (right).
GROUPS = T.FIGURE1_GROUPS

_PROTOCOL = {"reference": "rankings compared with the identity",
             "independent": "independent pairs of rankings"}
_REVERSE = {"auto": "the second metric reversed where most pairs disagree (as the paper)",
            "none": "no metric reversed", "orient": "lower-is-closer metrics reversed"}
_TIES = {"def1": "ties as Definition 1", "def1_ordered": "ties as Definition 1, ordered pairs",
         "lenient": "ties not counted against the pair"}

#: Why the Figure 1 page's and the sweep page's verdicts on "other lengths give similar
#: results" can disagree on one setting: both verdicts say it, in the same words.
WHOLE_VS_PAIRS = (
    "Why this can differ from the other page's verdict on the same setting: the Figure 1 page "
    "judges the picture as a whole (the rank correlation of all ratios and their mean "
    "difference), the sweep page each pair of metrics on its own; a picture can stay alike "
    "while some pairs move, so a setting can pass as a picture and fail pair by pair."
)


def ratio_param(claim: claims.Claim, name: str) -> float:
    """A ratio threshold of ``claim``'s rule, written in the ledger as a number or a fraction
    (``high = "5/6"``), as a float.

    Examples
    --------
    >>> c = claims.Claim(id="X-1", source="X", where="w", kind="sentence", claim="c",
    ...                  params={"high": "5/6", "low": 0.5})
    >>> round(ratio_param(c, "high"), 4), ratio_param(c, "low")
    (0.8333, 0.5)
    """
    return float(Fraction(str(claim.param(name))))


def label(metric: str) -> str:
    """The reader's name of a metric id.

    Examples
    --------
    >>> label("lr_minus"), label("kendall_tau")
    ('LR−', "Kendall's τ")
    """
    return display(metric)


def span(lo, hi, fmt: str = "{}") -> str:
    """A range over seeds as the page writes it: one value when every seed gives the same.

    Examples
    --------
    >>> span(195, 195), span(0.06, 0.52, "{:.2f}")
    ('195', '0.06 to 0.52')
    """
    a, b = fmt.format(lo), fmt.format(hi)
    return a if a == b else f"{a} to {b}"


def options_phrase(protocol: str, reverse: str, ties: str) -> str:
    """The sampling options in words.

    Examples
    --------
    >>> options_phrase("reference", "auto", "def1")
    'rankings compared with the identity, the second metric reversed where most pairs disagree (as the paper), ties as Definition 1'
    """
    return ", ".join([_PROTOCOL.get(protocol, f"protocol {protocol}"),
                      _REVERSE.get(reverse, f"reversal {reverse}"),
                      _TIES.get(ties, f"tie rule {ties}")])


# --------------------------------------------------------------------------------------------
# The sample and the heat map
# --------------------------------------------------------------------------------------------
@dataclass
class Sample:
    """One sample of rankings, its agreement matrix and the metric values behind it."""

    ar: pd.DataFrame
    values: dict
    n: int
    n_pairs: int
    k: int
    seed: int
    protocol: str
    reverse: str
    ties: str
    source: str = ""

    @property
    def names(self) -> list:
        return list(self.ar.index)

    def describe(self) -> str:
        dropped = {label(m): c for m, c in self.ar.attrs.get("dropped", {}).items() if c}
        where = (f" from {self.source}, compared with its first row" if self.source else
                 f" (seed {self.seed}, {_PROTOCOL.get(self.protocol, self.protocol)})")
        return (f"Sample: {claims.plural(self.n_pairs, 'ranking')} of {self.n} items{where}; "
                f"{self.k} relevant = "
                f"retrieved items; {_REVERSE.get(self.reverse, self.reverse)}, "
                f"{_TIES.get(self.ties, self.ties)}. "
                + ("Left out as undefined: " + ", ".join(f"{m} {c}" for m, c in dropped.items())
                   + "." if dropped else "No value is undefined."))


def no_ratio(ar: pd.DataFrame) -> bool:
    """True when no agreement ratio of the matrix is defined (every one NaN): a sample of a
    single ranking, or one on which every metric ties.

    Examples
    --------
    >>> no_ratio(pd.DataFrame([[np.nan, np.nan], [np.nan, np.nan]])), no_ratio(pd.DataFrame([[1.0]]))
    (True, False)
    """
    return not np.isfinite(ar.to_numpy(dtype=float)).any()


def no_ratio_text(ar: pd.DataFrame, n_pairs: int, what: str) -> str:
    """The sentence a section shows instead of ``what`` when no ratio is defined."""
    why = (f"the sample holds {n_pairs} ranking after the reference, and an agreement ratio "
           "compares two metrics over pairs of rankings of the sample, so none is defined"
           if n_pairs < 2 else "no agreement ratio is defined on this sample (every metric "
           "ties on every pair of rankings)")
    return f"Not shown: {what}, because {why}."


def sample(*, n: int = 100, n_pairs: int = 10000, k: int = 30, seed: int = 0,
           protocol: str = "reference", reverse: str = "auto", ties: str = "def1",
           pairs_csv: str = "", names: Sequence[str] | None = None) -> Sample:
    """Draw the sample (or read the reader's rankings) and compute its agreement matrix.

    ``pairs_csv``: a rankings CSV whose first row is the reference and the others the sample.
    """
    from rankbook import agreement, consensus, metrics, permutations

    names = list(names or metrics.NAMES)
    if pairs_csv:
        from pathlib import Path

        from rankbook.ledger.paths import resolve_input_path

        path = resolve_input_path(pairs_csv)
        own = list(next(iter(consensus.read_rankings_csv(path).values())).values())
        numbered = permutations.from_labels(own[0], *own[1:])
        refs, rankings = np.broadcast_to(numbered[0], numbered[1:].shape), numbered[1:]
        if len(rankings) < 2:  # no pair of rankings: no ratio is defined (the page says so)
            ar = pd.DataFrame(np.full((len(names), len(names)), np.nan), index=names,
                              columns=names)
            ar.index.name, ar.columns.name = "m1", "m2"
            ar.attrs["n_pairs"] = len(rankings)
            values = metrics.evaluate_many(names, refs, rankings, k=k)
        else:
            smp = agreement.evaluate_sample(names, k=k, pairs=(numbered[0], rankings))
            ar = agreement.agreement_matrix_from_values(smp.values, names, reverse=reverse,
                                                        ties=ties, sample=smp)
            values = smp.values
        n, n_pairs, protocol = numbered.shape[1], len(rankings), "reference"
        source = Path(str(pairs_csv)).name
    else:
        # one draw, one evaluation: the matrix and the page's values share the sample
        smp = agreement.evaluate_sample(names, n=n, n_pairs=n_pairs, k=k, seed=seed,
                                        protocol=protocol)
        ar = agreement.agreement_matrix_from_values(smp.values, names, reverse=reverse,
                                                    ties=ties, sample=smp)
        values = smp.values
        source = ""
    return Sample(ar=ar, values=values, n=int(n), n_pairs=int(n_pairs), k=int(k), seed=int(seed),
                  protocol=protocol, reverse=reverse, ties=ties, source=source)


#: :func:`sample` under another name, for the checks whose keyword ``sample`` passes one.
_draw = sample


def colour_range(values, reverse: str = "auto") -> tuple[float, float]:
    """The colour range of the heat map (and of its explorer): from 0.5 with reversal (most
    ratios are at least 0.5 then), lower when some ratio is lower, in steps of 0.05; up to 1.

    >>> colour_range([0.62, 0.9, 1.0]), colour_range([0.43, 1.0]), colour_range([0.7], "none")
    ((0.5, 1.0), (0.4, 1.0), (0.0, 1.0))
    """
    finite = np.asarray(values, dtype=float)
    finite = finite[np.isfinite(finite)]
    low = float(finite.min()) if finite.size else 1.0
    return (float(min(0.5 if reverse == "auto" else 0.0, np.floor(low * 20) / 20)), 1.0)


def heat_map(s: Sample, order: str = "family") -> claims.Section:
    """The heat map of Figure 1 (left), recomputed, rows and columns in ``order``
    (``"family"``, ``"figure1"`` or ``"clustered"``), and the matrix as a table."""
    import matplotlib.pyplot as plt
    import seaborn as sns
    from scipy.cluster.hierarchy import leaves_list, linkage
    from scipy.spatial.distance import squareform

    from rankbook import metrics

    names = s.names
    if no_ratio(s.ar):  # the metric values of the sample instead of an empty picture
        part = claims.Section(values={"low": float("nan")})
        part.say(no_ratio_text(s.ar, s.n_pairs, "the heat map of agreement ratios") + (
            " The values of the metrics on the sample, against the reference, are below."))
        table = pd.DataFrame({label(m): np.asarray(s.values[m], dtype=float) for m in names},
                             index=pd.RangeIndex(1, s.n_pairs + 1, name="ranking")).T
        table.index.name = "metric"
        part.add_table("sample_metric_values", table, index=True, float_format="{:.4f}",
                   title="The value of each metric on each ranking of the sample")
        part.add_table("agreement_matrix", s.ar, show=False, index=True)
        return part
    family = {m: metrics.REGISTRY[m].family for m in names}
    fam_order = list(metrics.FAMILIES)
    blocks = []
    if order == "family":
        ordered = sorted(names, key=lambda m: (fam_order.index(family[m]), names.index(m)))
        blocks = [sum(family[m] == f for m in names) for f in fam_order]
    elif order == "figure1":
        ordered = [m for ms in GROUPS.values() for m in ms if m in names]
        blocks = [len([m for m in ms if m in names]) for ms in GROUPS.values()]
    elif order == "clustered":
        dist = 1.0 - s.ar.to_numpy()
        dist = np.nan_to_num((dist + dist.T) / 2, nan=1.0)
        np.fill_diagonal(dist, 0.0)
        ordered = [names[i] for i in leaves_list(linkage(squareform(dist, checks=False),
                                                         "average"))]
    else:
        raise ValueError(f"order must be 'family', 'figure1' or 'clustered', got {order!r}")
    mat = s.ar.loc[ordered, ordered]
    lo, _ = colour_range(mat.to_numpy(), s.reverse)
    fig, ax = plt.subplots(figsize=(8.2, 7.6))
    sns.heatmap(mat.rename(index=label, columns=label), ax=ax, cmap="PiYG", vmin=lo, vmax=1.0,
                center=(lo + 1) / 2, square=True, linewidths=0.2, linecolor="white",
                cbar_kws={"label": "agreement ratio", "shrink": 0.7},
                xticklabels=True, yticklabels=True)
    for b in np.cumsum(blocks)[:-1] if blocks else []:
        ax.axhline(b, color="black", lw=1.2)
        ax.axvline(b, color="black", lw=1.2)
    ax.set_xlabel("")
    ax.set_ylabel("")
    ax.tick_params(labelsize=10.5)
    ax.figure.axes[-1].tick_params(labelsize=10.5)
    words = {"family": "family", "figure1": "Figure 1 (right)", "clustered": "clustered"}[order]
    ax.set_title(f"Agreement ratio, n = {s.n}, {s.n_pairs} rankings, k = {s.k} ({words} order)",
                 fontsize=11)
    part = claims.Section(values={"low": lo})
    part.add_figure("agreement_heatmap", fig, wide=True, caption=(
        f"Paper A, Figure 1 (left), recomputed: agreement ratios of the {len(names)} metrics on "
        f"{s.n_pairs} rankings of length {s.n} with {s.k} relevant items; "
        f"{options_phrase(s.protocol, s.reverse, s.ties)}; rows and columns in {words} order."),
        alt=(f"A {len(names)} by {len(names)} heat map of agreement ratios between ranking "
             f"metrics, coloured from pink (ratio {lo:g}) through white to green (ratio 1)."))
    part.add_table("agreement_matrix", s.ar, show=False, index=True)
    return part


def _setting(claim: claims.Claim) -> dict:
    """The paper's setting of Figure 1 as the claim states it (``n``, ``n_pairs``, ``k``)."""
    return dict(claim.params.get("setting", {}))


def check_figure1(claim: claims.Claim, *, sample: Sample | None = None, **sample_args) -> claims.Evidence:
    """The heat map of Figure 1 (left), recomputed. The paper prints no numbers, so nothing is
    compared (not checkable); its statements are the claims that follow. ``sample`` is the
    page's :class:`Sample`; without it one is drawn with ``sample_args`` over the paper's setting
    (the claim's ``setting``).

    Examples
    --------
    >>> from rankbook.papers.paper_a.entries import checked_by
    >>> check_figure1(checked_by(check_figure1), n=8, n_pairs=30, k=2,
    ...               names=["recall", "dcg", "ndcg"]).status
    'not checkable'
    """
    s = sample if sample is not None else _draw(**{**_setting(claim), **sample_args})
    m = s.ar.to_numpy(dtype=float)
    iu = np.triu_indices(len(m), 1)
    full = int(np.sum(m[iu] == 1.0))
    return claim.evidence(
        comparison="none", published="a heat map with no printed numbers",
        reproduced=(f"recomputed in full: all {len(iu[0])} ratios; "
                    f"{claims.plural(full, 'pair')} agree fully"),
        detail=(f"recomputed and drawn, but the figure prints no numbers to compare, so the status "
                f"cannot be more than not checkable; {s.n_pairs} rankings of length {s.n}, k = {s.k}; "
                f"{options_phrase(s.protocol, s.reverse, s.ties)}"))


def check_consistent_ratio(claim: claims.Claim, *, sample: Sample | None = None,
                           **sample_args) -> claims.Evidence:
    """Section 5.1, after Definition 2: the agreement ratio of two consistent metrics is 1.

    True by Definition 2: on every pair of rankings the indicator is 1 when the metrics are
    consistent. The evidence shows it on the page's ``sample`` (or one drawn with
    ``sample_args`` over the claim's ``setting``): the pairs of metrics that are increasing
    linear functions of one another on the sample, hence consistent there, and their ratios. A
    ratio below 1 among them could only come from a wrong implementation of the ratio; it makes
    the sentence false with the pairs named.

    Examples
    --------
    >>> from rankbook.papers.paper_a.entries import checked_by
    >>> check_consistent_ratio(checked_by(check_consistent_ratio), n=8, n_pairs=40, k=2,
    ...                        names=["recall", "precision", "dcg", "ndcg"]).status
    'true by definition'
    """
    s = sample if sample is not None else _draw(**{**_setting(claim), **sample_args})
    pairs = pair_table(s.ar)
    rows = []
    for a, b, ratio in zip(pairs["m1"], pairs["m2"], pairs["ratio"]):
        x, y = np.asarray(s.values[a], float), np.asarray(s.values[b], float)
        ok = np.isfinite(x) & np.isfinite(y)
        if T.equivalence_kind(x, y) == "linear" and np.cov(x[ok], y[ok])[0, 1] > 0:
            rows.append({"metric": label(a), "other metric": label(b), "ratio": float(ratio)})
    linked = pd.DataFrame(rows, columns=["metric", "other metric", "ratio"])
    below = linked[linked["ratio"] != 1.0]
    common = dict(published="the ratio of two consistent metrics is 1",
                  reproduced=(f"{claims.plural(len(linked), 'pair')} of metrics are increasing linear "
                              f"functions of each other on the sample; "
                              + ("every one has the ratio 1" if below.empty else
                                 f"{len(below)} of them have a ratio below 1")))
    if below.empty:
        ev = claim.evidence(comparison="definition", **common,
                            detail="Definition 2 counts each pair of rankings the two metrics order "
                                   "alike, which consistent metrics do on every pair")
    else:
        ev = claim.evidence(comparison="claim", holds=False, **common,
                            failures=[f"{r['metric']} and {r['other metric']}: {r['ratio']:.4f}"
                                      for _, r in below.iterrows()],
                            detail="a wrong agreement ratio: consistent metrics must agree on every pair")
    ev.add_table("consistent_pairs", linked, float_format="{:.4f}", collapse=True,
                 title="Pairs of metrics that are increasing linear functions of each other on the "
                       "sample, and their agreement ratio")
    return ev


def group_tables(ar: pd.DataFrame) -> claims.Section:
    """The groups of Figure 1 (right) and the mean ratio within and between them."""
    part = claims.Section()
    if no_ratio(ar):
        part.say(no_ratio_text(ar, ar.attrs.get("n_pairs", 2), "the mean agreement ratio "
                                "within and between the groups of Figure 1 (right)"))
        return part
    members = pd.DataFrame({"group": list(GROUPS),
                            "metrics": [", ".join(label(m) for m in ms) for ms in GROUPS.values()],
                            "count": [len(ms) for ms in GROUPS.values()]})
    part.add_table("figure1_groups", members, title="Figure 1 (right): the three groups of metrics")
    part.add_table("group_mean_agreement", T.figure1_group_means(ar).round(4), index=True,
               title="Mean agreement ratio within (diagonal) and between the groups of "
                     "Figure 1 (right)")
    return part


# --------------------------------------------------------------------------------------------
# Pairs that agree fully, pairs that disagree most, intervals, protocols
# --------------------------------------------------------------------------------------------
def pair_table(ar: pd.DataFrame) -> pd.DataFrame:
    """The distinct pairs of metrics (upper triangle): ``m1, m2, ratio, reversed``."""
    names = list(ar.index)
    iu = np.triu_indices(len(names), 1)
    rev = ar.attrs.get("reversed")
    return pd.DataFrame({"m1": [names[i] for i in iu[0]], "m2": [names[j] for j in iu[1]],
                         "ratio": ar.to_numpy(dtype=float)[iu],
                         "reversed": (rev.to_numpy()[iu] if rev is not None
                                      else np.zeros(len(iu[0]), dtype=bool))})


def full_agreement(s: Sample) -> claims.Section:
    """The pairs with ratio exactly 1, how their values relate on the sample (linear or only
    monotone), and the groups of metrics linked by full agreement (``values["classes"]``)."""
    pairs = pair_table(s.ar)
    if no_ratio(s.ar):
        part = claims.Section()
        part.say(no_ratio_text(s.ar, s.n_pairs, "the pairs of metrics that agree fully"))
        part.values.update(pairs=pairs, full=pairs.iloc[:0], classes=[])
        return part
    full = pairs[pairs["ratio"] == 1.0].copy()
    full["relation"] = [T.equivalence_kind(s.values[a], s.values[b])
                        for a, b in zip(full["m1"], full["m2"])]
    full["direction"] = ["decreasing" if r else "increasing" for r in full["reversed"]]
    part = claims.Section()
    shown = full.assign(m1=full["m1"].map(label), m2=full["m2"].map(label))[
        ["m1", "m2", "relation", "direction"]].rename(columns={"m1": "metric",
                                                               "m2": "other metric"})
    part.add_table("full_agreement_pairs", shown, collapse=True,
               title=f"The {claims.plural(len(full), 'pair')} of metrics with agreement ratio 1")
    parent = {m: m for m in s.names}

    def find(m):
        while parent[m] != m:
            m = parent[m]
        return m

    for a, b in zip(full["m1"], full["m2"]):
        parent[find(a)] = find(b)
    classes: dict = {}
    for m in s.names:
        classes.setdefault(find(m), []).append(m)
    classes = [c for c in classes.values() if len(c) > 1]
    groups = pd.DataFrame({
        "metrics": [", ".join(label(m) for m in c) for c in classes],
        "size": [len(c) for c in classes],
        "relations inside": [", ".join(sorted(set(full[full["m1"].isin(c)]["relation"])))
                             for c in classes]})
    part.add_table("full_agreement_groups", groups,
                   title="Groups of metrics that agree fully with each other on the sample")
    n_lin = int((full["relation"] == "linear").sum())
    n_mon = int((full["relation"] == "monotone").sum())
    part.say(f"{claims.plural(len(full), 'pair')} agree fully: {n_lin} linearly related, "
              f"{n_mon} only monotonically, {len(full) - n_lin - n_mon} neither on the sample "
              "values.")
    part.values.update(pairs=pairs, full=full, classes=classes)
    return part


def disagreement(s: Sample, classes: list) -> claims.Section:
    """The lowest ratios (metrics that agree fully shown as one group), and how the ratios are
    distributed, with the interval of each (``values["intervals"]``)."""
    from rankbook import agreement

    pairs = pair_table(s.ar)
    if no_ratio(s.ar):
        part = claims.Section()
        part.say(no_ratio_text(s.ar, s.n_pairs, "the pairs of metrics that disagree most and "
                                "the intervals of the ratios"))
        iv = pd.DataFrame(columns=["m1", "m2", "ratio", "low", "high", "n_effective",
                                   "reversed", "excludes_half"])
        iv.attrs["confidence"] = 0.95
        part.values["intervals"] = iv
        return part
    cls = {m: i for i, c in enumerate(classes) for m in c}

    def group_name(m):
        if m not in cls:
            return label(m)
        c = classes[cls[m]]
        return (f"{label(c[0])} (+{len(c) - 1} agreeing fully)" if len(c) > 3
                else " = ".join(label(x) for x in c))

    pairs["g1"], pairs["g2"] = pairs["m1"].map(group_name), pairs["m2"].map(group_name)
    distinct = pairs[pairs["g1"] != pairs["g2"]]
    worst = (distinct.groupby(["g1", "g2"], sort=False)
             .agg(ratio=("ratio", "min"), pairs=("ratio", "size"), reversed=("reversed", "any"))
             .reset_index().sort_values(["ratio", "g1", "g2"]).head(12))
    part = claims.Section()
    part.add_table("most_disagreeing_pairs", worst.rename(columns={
        "g1": "metric (group)", "g2": "other metric (group)", "pairs": "metric pairs",
        "reversed": "second metric reversed (any pair)"}), float_format="{:.4f}",
        title="The 12 lowest agreement ratios, metrics that agree fully shown as one group")
    iv = agreement.agreement_intervals_from_values(s.values, s.names, reverse=s.reverse,
                                                   ties=s.ties)
    r = pairs["ratio"].to_numpy()
    if not np.array_equal(iv["ratio"].to_numpy(), r, equal_nan=True):
        raise ValueError("the intervals were computed on other pairs than the matrix")
    excl = iv["excludes_half"].to_numpy()
    conf = iv.attrs["confidence"]
    edges = [0.5, 0.6, 0.7, 0.8, 0.9, 1.0]
    bins = [r < 0.5] + [(r >= a) & (r < b) for a, b in zip(edges, edges[1:])] + [r == 1.0]
    distribution = pd.DataFrame({
        "ratio in": ["below 0.5"] + [f"[{a:g}, {b:g})" for a, b in zip(edges, edges[1:])]
        + ["exactly 1"],
        "pairs": [int(b.sum()) for b in bins],
        f"{conf:.0%} interval excludes 1/2": [int((b & excl).sum()) for b in bins]})
    part.add_table(
        "ratio_distribution", distribution,
        title=(f"How the {len(pairs)} agreement ratios of distinct metrics are distributed, "
               f"and how many have a {conf:.0%} interval that excludes 1/2"))
    part.values["intervals"] = iv
    return part


def intervals(iv: pd.DataFrame) -> claims.Section:
    """Every ratio with its interval: a figure, a paragraph and a table."""
    import matplotlib.pyplot as plt

    conf = iv.attrs["confidence"]
    iv = (iv.dropna(subset=["ratio"]).assign(width=lambda d: d["high"] - d["low"])
          .sort_values(["ratio", "m1", "m2"], kind="stable").reset_index(drop=True))
    if not len(iv):
        part = claims.Section()
        part.say("Not shown: the intervals of the agreement ratios, because no ratio is "
                  "defined on this sample.")
        return part
    xs = np.arange(len(iv))
    inc = ~iv["excludes_half"].to_numpy(dtype=bool)
    fig, (ax1, ax2) = plt.subplots(1, 2, figsize=(7.6, 3.4),
                                   gridspec_kw={"width_ratios": [3, 2]})
    ax1.fill_between(xs, iv["low"], iv["high"], step="mid", color="C0", alpha=0.35, lw=0,
                     label=f"{conf:.0%} interval")
    ax1.plot(xs, iv["ratio"], color="C0", lw=1.2, label="ratio")
    if inc.any():
        ax1.scatter(xs[inc], iv["ratio"][inc], color="C3", marker="x", s=16, zorder=3,
                    label="interval includes 1/2")
        ax2.scatter(iv["ratio"][inc], iv["width"][inc] / 2, s=16, color="C3", marker="x")
    ax1.axhline(0.5, color="black", ls="--", lw=1, label="1/2: unrelated")
    ax1.set(xlabel="pairs of metrics, sorted by ratio", ylabel="agreement ratio")
    ax1.legend(loc="upper left")
    ax1.grid(alpha=0.3)
    ax2.scatter(iv["ratio"], iv["width"] / 2, s=10, color="C0")
    ax2.set(xlabel="agreement ratio", ylabel="half-width of the interval")
    ax2.set_ylim(0, None)
    ax2.grid(alpha=0.3)
    fig.tight_layout()
    part = claims.Section()
    part.add_figure("agreement_intervals", fig, caption=(
        f"Paper A, Figure 1 (left), with sampling error: the {len(iv)} agreement ratios of the "
        f"heat map sorted, each with its {conf:.0%} interval (left; the dashed line is 1/2), "
        "and the half-width of each interval against the ratio (right)."),
        alt=(f"Left, an increasing curve of {len(iv)} agreement ratios from "
             f"{iv['ratio'].min():.3f} to {iv['ratio'].max():.3f} inside a band of their "
             f"intervals, above a dashed line at one half; {int(inc.sum())} intervals include "
             f"one half. Right, interval half-widths from {iv['width'].min() / 2:.4f} to "
             f"{iv['width'].max() / 2:.4f} plotted against the ratio."))
    n_inc = int(inc.sum())
    text = (f"All {len(iv)} pairs of distinct metrics have a {conf:.0%} interval that excludes "
            "1/2. " if not n_inc else f"{len(iv) - n_inc} of the {len(iv)} pairs of distinct "
            f"metrics have a {conf:.0%} interval that excludes 1/2. ")
    if n_inc:
        few = iv[inc].head(5)
        text += (f"The {n_inc} whose interval includes 1/2 cannot be told from unrelated "
                 "metrics on this sample: " + "; ".join(
                     f"{label(a)} and {label(b)} ({x:.4f}, [{lo:.4f}, {hi:.4f}])"
                     for a, b, x, lo, hi in zip(few["m1"], few["m2"], few["ratio"], few["low"],
                                                few["high"]))
                 + (f"; {n_inc - 5} more in the table below" if n_inc > 5 else "") + ". ")
    widest = iv.loc[iv["width"].idxmax()]
    text += (f"The intervals are at most {widest['width']:.4f} wide ({label(widest['m1'])} and "
             f"{label(widest['m2'])}), with a median width of {iv['width'].median():.4f}; the "
             f"effective number of independent pairs behind them runs from "
             f"{iv['n_effective'].min():,.0f} to {iv['n_effective'].max():,.0f} (a ratio of "
             "exactly 0 or 1 gets the most cautious size, half the sample).")
    part.say(text)
    shown = iv.assign(m1=iv["m1"].map(label), m2=iv["m2"].map(label),
                      n_effective=iv["n_effective"].round().astype("Int64"))[
        ["m1", "m2", "ratio", "low", "high", "n_effective", "reversed", "excludes_half"]
    ].rename(columns={"m1": "metric", "m2": "other metric", "low": f"{conf:.0%} low",
                      "high": f"{conf:.0%} high", "n_effective": "effective pairs",
                      "reversed": "second metric reversed", "excludes_half": "excludes 1/2"})
    part.add_table("agreement_intervals", shown, collapse=True, float_format="{:.4f}",
               title=f"Every agreement ratio with its {conf:.0%} interval, lowest ratio first")
    return part


def protocol_comparison(s: Sample) -> claims.Section:
    """The ratios under the other reading of "random pairs" and the largest changes."""
    from rankbook import agreement

    other = "independent" if s.protocol == "reference" else "reference"
    ar2 = agreement.agreement_matrix(s.names, n=s.n, n_pairs=s.n_pairs, k=s.k, seed=s.seed,
                                     protocol=other, reverse=s.reverse, ties=s.ties)
    pairs = pair_table(s.ar)
    words = {"reference": "compared with the identity", "independent": "independent pairs"}
    a, b = words[s.protocol], words[other]
    delta = pd.DataFrame({"metric": pairs["m1"].map(label), "other metric": pairs["m2"].map(label),
                          a: pairs["ratio"], b: pair_table(ar2)["ratio"]})
    delta["change"] = (delta[b] - delta[a]).abs()
    part = claims.Section()
    part.add_table("protocol_comparison", delta.sort_values(["change", "metric", "other metric"],
                                                            ascending=[False, True, True]).head(10),
                   float_format="{:.4f}",
                   title=f"Largest changes of the agreement ratio between rankings {a} and {b}")
    part.say(f"Median change over all pairs: {delta['change'].median():.4f}; largest: "
              f"{delta['change'].max():.4f}.")
    return part


# --------------------------------------------------------------------------------------------
# Repetition over seeds, and the claims
# --------------------------------------------------------------------------------------------
@dataclass
class Runs:
    """Figure 1 recomputed on independent seeds: one row per seed, the matrices by seed."""

    per_seed: pd.DataFrame
    mats: dict
    n: int
    n_pairs: int
    k: int
    options: dict

    @property
    def seeds(self) -> list:
        return list(self.mats)

    def describe(self) -> str:
        s = self.seeds
        return (f"Seeds {s[0]} to {s[-1]}: {len(s)} samples of {self.n_pairs} rankings of "
                f"{self.n} items with $k = {self.k}$, each with the options of the heat map.")


def over_seeds(*, n_seeds: int, seed: int = 0, n: int = 100, n_pairs: int = 10000,
               k: int = 30, protocol: str = "reference", reverse: str = "auto",
               ties: str = "def1", names: Sequence[str] | None = None) -> Runs:
    """Figure 1 on ``n_seeds`` independent samples (seeds ``seed, seed + 1, ...``)."""
    seeds = T.figure1_seeds(seed, n_seeds)
    options = {"protocol": protocol, "reverse": reverse, "ties": ties}
    if names is not None:
        options["names"] = list(names)
    per_seed, mats = T.figure1_over_seeds(seeds, n=n, n_pairs=n_pairs, k=k, **options)
    return Runs(per_seed=per_seed, mats=mats, n=int(n), n_pairs=int(n_pairs), k=int(k),
                options=options)


def _runs(claim: claims.Claim, runs: Runs | None, run_args: dict) -> Runs:
    """The page's runs, or new ones over the paper's setting and the claim's number of seeds
    (``run_args`` override both)."""
    if runs is not None:
        return runs
    setting = {k: v for k, v in _setting(claim).items() if k in ("n", "n_pairs", "k")}
    return over_seeds(**{**setting, "n_seeds": int(claim.param("n_seeds")), **run_args})


def _at_setting(claim: claims.Claim, r: Runs) -> bool:
    """Whether the runs use the paper's n and k (the claim's ``setting``): errata speak of
    the paper's figure, not of a reader's other setting."""
    setting = _setting(claim)
    return (r.n, r.k) == (setting.get("n"), setting.get("k"))


def check_dcg_ndcg(claim: claims.Claim, *, runs: Runs | None = None, **run_args) -> claims.Evidence:
    """Appendix C.3: DCG and nDCG never disagree, "as Figure 1 showed".

    nDCG is DCG divided by a constant of n, so the two order every pair of rankings alike: the
    statement is true by definition, and the ratio on each seed only confirms the
    implementation (a ratio below 1 would make it false).
    """
    r = _runs(claim, runs, run_args)
    ratios = r.per_seed["dcg_ndcg"]
    ok = bool((ratios == 1.0).all())
    table = r.per_seed[["seed", "dcg_ndcg"]].rename(columns={"dcg_ndcg": "DCG–nDCG ratio"})
    ev = claim.evidence(
        comparison="definition" if ok else "claim",
        holds=None if ok else False,
        published="no inconsistency between DCG and nDCG",
        reproduced=f"agreement ratio {span(ratios.min(), ratios.max(), '{:.4f}')} on "
                   f"{claims.plural(len(ratios), 'seed')}",
        failures=None if ok else [f"seed {s}: ratio {v:.4f}" for s, v in
                                  zip(r.per_seed["seed"], ratios) if v != 1.0],
        detail=("nDCG is DCG divided by the DCG of the ideal ranking, a constant for a given "
                "length, so the two order every pair of rankings alike; the ratio on each seed "
                "confirms the implementation"))
    ev.add_table("figure1_statements_per_seed", table, float_format="{:.4f}", collapse=True,
                 title="The agreement ratio of DCG and nDCG on each seed")
    return ev


def check_inconsistencies(claim: claims.Claim, *, runs: Runs | None = None,
                          **run_args) -> claims.Evidence:
    """Section 5: examples of inconsistent metrics are often easy to construct.

    Read as: a random sample of the page's size holds an inconsistency (a pair of rankings the
    two metrics order differently, Definition 1 as :mod:`rankbook.agreement` reads it, so a
    ratio below 1) for more than the claim's ``share`` of the pairs of distinct metrics, on
    every seed.
    """
    share = float(claim.param("share"))
    r = _runs(claim, runs, run_args)
    rows = []
    for s, ar in r.mats.items():
        m = ar.to_numpy(dtype=float)
        x = m[np.triu_indices(len(m), 1)]
        rows.append({"seed": s, "pairs": int(x.size), "inconsistent": int(np.sum(x < 1.0))})
    t = pd.DataFrame(rows)
    t["share"] = t["inconsistent"] / t["pairs"]
    ok = t["share"] > share
    n_seeds = len(t)
    return claim.evidence(
        comparison="claim", holds=bool(ok.all()),
        published="inconsistencies are often trivial to construct",
        reproduced=(f"{span(t['inconsistent'].min(), t['inconsistent'].max())} of "
                    f"{int(t['pairs'].iloc[0])} pairs of metrics show an inconsistency in a "
                    f"random sample of {r.n_pairs} rankings"),
        failures=[f"seed {x.seed}: {x.inconsistent} of {x.pairs} pairs" for x in
                  t[~ok].itertuples()] or None,
        seeds_passed=(int(ok.sum()), n_seeds),
        borderline=("" if ok.all() or not ok.any() else
                    f"the seeds disagree: it holds on {claims.seeds_phrase(int(ok.sum()), n_seeds)}"),
        reading=(f"often: for more than {share:.0%} of the pairs of distinct metrics, a random "
                 "sample holds a pair of rankings they order differently (a ratio below 1)"),
        detail=f"{n_seeds} samples of {r.n_pairs} rankings of length {r.n}, k = {r.k}",
        values={"per_seed": t})


def _is_branch(Z: np.ndarray, members: list[int], size: int) -> bool:
    """Whether ``members`` (leaf indices) join one another before any joins another leaf."""
    if len(members) <= 1:
        return True
    want = set(members)
    clusters = {i: {i} for i in range(size)}
    for step, (a, b, *_rest) in enumerate(Z):
        merged = clusters.pop(int(a)) | clusters.pop(int(b))
        clusters[size + step] = merged
        if merged & want:
            if want <= merged:
                return merged == want
            if not merged <= want:
                return False
    return False


def group_readings(ar: pd.DataFrame, groups: dict | None = None, *,
                   high: float) -> pd.DataFrame:
    """Per group of Figure 1 (right), on one matrix: the share of its pairs that agree highly,
    whether that share exceeds one half, whether its mean ratio exceeds its mean ratio with
    each other group, and whether it is a branch of the average-linkage tree of 1 - ratio.

    Examples
    --------
    >>> ar = pd.DataFrame([[1, .9, .5], [.9, 1, .6], [.5, .6, 1]], index=list("abc"),
    ...                   columns=list("abc"))
    >>> group_readings(ar, {"x": ["a", "b"], "y": ["c"]}, high=5 / 6)[["green_share", "mostly_green",
    ...                                                     "branch"]].to_dict("list")
    {'green_share': [1.0, nan], 'mostly_green': [True, True], 'branch': [True, True]}
    """
    from scipy.cluster.hierarchy import linkage
    from scipy.spatial.distance import squareform

    groups = GROUPS if groups is None else groups
    names = list(ar.index)
    groups = {g: [m for m in ms if m in names] for g, ms in groups.items()}
    d = 1.0 - ar.to_numpy(dtype=float)
    d = np.nan_to_num((d + d.T) / 2, nan=1.0)
    np.fill_diagonal(d, 0.0)
    Z = linkage(squareform(d, checks=False), "average")
    gm = T.figure1_group_means(ar, groups)
    rows = []
    for g, ms in groups.items():
        block = ar.loc[ms, ms].to_numpy(dtype=float)
        x = block[np.triu_indices(len(ms), 1)]
        x = x[np.isfinite(x)]
        share = float((x >= high).mean()) if x.size else float("nan")
        others = [gm.loc[g, h] for h in groups if h != g]
        rows.append({"group": g, "pairs": int(x.size), "green_share": share,
                     "mostly_green": bool(not x.size or share > 0.5),
                     "within_exceeds_between": bool(all(gm.loc[g, g] > o for o in others
                                                        if np.isfinite(o)))
                     if np.isfinite(gm.loc[g, g]) else True,
                     "branch": _is_branch(Z, [names.index(m) for m in ms], len(names))})
    return pd.DataFrame(rows)


#: The readings of "metrics similar in theory agree highly", per group of Figure 1 (right).
GROUP_READINGS = {
    "mostly_green": "most pairs inside the group agree highly (the green third)",
    "within_exceeds_between": "the group's mean ratio exceeds its mean ratio with each other group",
    "branch": "the group is a branch of the average-linkage tree of the agreement ratios",
}


def check_groups(claim: claims.Claim, *, runs: Runs | None = None, groups: dict | None = None,
                 **run_args) -> claims.Evidence:
    """Section 5.1: metrics similar in theory (one group of Figure 1, right) agree highly.

    One sentence, three readings side by side (:data:`GROUP_READINGS`), each counted in groups
    that pass; the verdict uses the first (the sentence's own words: a ratio of at least the
    claim's ``high``, green). A group passes a reading on a seed; the count is the median over
    seeds, and seeds that disagree make it borderline. ``groups`` replaces Figure 1's groups
    (the mutation test). Failing groups at the paper's setting are the finding ``groups``.
    """
    high = ratio_param(claim, "high")
    r = _runs(claim, runs, run_args)
    own = groups is None
    groups = GROUPS if groups is None else groups
    rows = [group_readings(ar, groups, high=high).assign(seed=s) for s, ar in r.mats.items()]
    table = pd.concat(rows, ignore_index=True)
    counts = {key: [int(g[key].sum()) for _, g in table.groupby("seed")] for key in GROUP_READINGS}
    total = len(groups)
    per_seed = counts["mostly_green"]
    matched = claims.median_count(per_seed)
    passes = table.groupby("group", sort=False)["mostly_green"].sum()
    n_seeds = len(r.mats)
    failing = [g for g in groups if 2 * passes[g] <= n_seeds][: total - matched]
    shares = table.groupby("group", sort=False)["green_share"].agg(["min", "max"])
    seeds_ok = sum(c == total for c in per_seed)
    holds = matched == total
    borderline = ""
    if len(set(per_seed)) > 1:
        borderline = (f"the groups pass on some seeds only: every group passes on "
                      f"{claims.seeds_phrase(seeds_ok, n_seeds)}")
    summary = (table.groupby("group", sort=False)
               .agg(pairs=("pairs", "first"), low=("green_share", "min"),
                    high=("green_share", "max"), green=("mostly_green", "sum"),
                    above=("within_exceeds_between", "sum"), branch=("branch", "sum"))
               .reset_index())
    summary.columns = ["group", "pairs inside", "share agreeing highly (lowest)",
                       "share agreeing highly (highest)", "seeds where most agree highly",
                       "seeds where its mean exceeds the others", "seeds where it is a branch"]
    ev = claim.evidence(
        comparison="claim", published="similar metrics agree highly",
        reproduced=(f"{matched} of {total} groups: most of their pairs agree highly (median over "
                    f"{claims.plural(n_seeds, 'seed')}); share agreeing highly "
                    + "; ".join(f"{g} {span(shares.loc[g, 'min'], shares.loc[g, 'max'], '{:.2f}')}"
                                for g in groups)),
        matched=matched, total=total, unit="groups",
        failures=[f"{g} (most of its pairs agree highly on "
                  f"{claims.seeds_phrase(int(passes[g]), n_seeds)})" for g in failing] or None,
        per_seed=per_seed if n_seeds >= 2 else None,
        seeds_passed=(seeds_ok, n_seeds), borderline=borderline,
        reading=(f"most pairs inside the group agree highly (a ratio of at least {high:.4f}, the "
                 "green third)"),
        alternatives={GROUP_READINGS[k]: claims.median_count(counts[k])
                      for k in ("within_exceeds_between", "branch")},
        detail=(f"the groups of Figure 1 (right) on {n_seeds} samples of {r.n_pairs} rankings "
                f"of length {r.n}, k = {r.k}; a group passes a reading on a seed, and the count "
                "is the median over seeds"))
    if not holds and own and _at_setting(claim, r):
        ev.findings.append(claim.finding("groups", evidence="\n".join(
            [f"{g}: share of its {int(table[table['group'] == g]['pairs'].iloc[0])} pairs that "
             f"agree highly {span(shares.loc[g, 'min'], shares.loc[g, 'max'], '{:.3f}')} over "
             f"{claims.plural(n_seeds, 'seed')}" for g in groups]
            + [f"{GROUP_READINGS[k]}: {claims.median_count(v)} of {total} groups (median over "
               "seeds)" for k, v in counts.items()]),
            readings=[GROUP_READINGS["mostly_green"]]))
    ev.add_table("figure1_group_readings", summary, float_format="{:.3f}",
                 title="The groups of Figure 1 (right) under the three readings, over seeds")
    return ev


def set_based_only(claim: claims.Claim, **smoke) -> dict:
    """Mutant: a wrong reading of the groups (the set-based metrics only)."""
    return {"groups": {"set based": GROUPS["set based"]}}


def _tost(high: int, low: int, margin: float, alpha: float) -> dict:
    """Two one-sided exact binomial tests of the share high / (high + low) against
    1/2 - margin and 1/2 + margin, and the one-sided tests that it lies outside them.

    Examples
    --------
    >>> r = _tost(195, 228, 0.1, 0.05)
    >>> r["equivalent"], r["outside"], round(r["share"], 3)
    (True, False, 0.461)
    >>> _tost(20, 60, 0.1, 0.05)["outside"]
    True
    """
    from scipy.stats import binomtest

    total = high + low
    if total == 0:
        return {"share": float("nan"), "p_equivalence": 1.0, "p_outside": 1.0,
                "equivalent": False, "outside": False}
    lo, hi = 0.5 - margin, 0.5 + margin
    p_eq = max(binomtest(high, total, lo, alternative="greater").pvalue,
               binomtest(high, total, hi, alternative="less").pvalue)
    p_out = min(binomtest(high, total, lo, alternative="less").pvalue,
                binomtest(high, total, hi, alternative="greater").pvalue)
    return {"share": high / total, "p_equivalence": float(p_eq), "p_outside": float(p_out),
            "equivalent": bool(p_eq < alpha), "outside": bool(p_out < alpha)}


def _balance(ar: pd.DataFrame, high: float, low: float) -> dict:
    """The distinct pairs of metrics (upper triangle) with a ratio of at least ``high``, below
    ``low`` and in between (undefined ratios left out).

    Examples
    --------
    >>> ar = pd.DataFrame([[1, .9, .5], [.9, 1, .7], [.5, .7, 1]])
    >>> _balance(ar, 5 / 6, 2 / 3)
    {'high': 1, 'low': 1, 'partial': 1}
    """
    m = ar.to_numpy(dtype=float)
    x = m[np.triu_indices(len(m), 1)]
    x = x[np.isfinite(x)]
    n_high, n_low = int((x >= high).sum()), int((x < low).sum())
    return {"high": n_high, "low": n_low, "partial": int(x.size) - n_high - n_low}


def check_even(claim: claims.Claim, *, runs: Runs | None = None, **run_args) -> claims.Evidence:
    """Section 5.1: as many pairs of metrics agree highly as disagree highly.

    A statement of no difference, so it is decided by an equivalence test with the margin
    fixed in advance (the claim's ``margin``): on each seed, the share of highly agreeing pairs
    (ratio at least ``high``) among the pairs that agree or disagree highly (below ``low``) must
    lie within ``margin`` of 1/2 by two one-sided exact binomial tests at ``alpha``. It holds
    when that is shown on every seed, is false when the share lies significantly outside the
    margin on any seed, and is not contradicted (not checkable) otherwise.
    """
    margin, alpha = float(claim.param("margin")), float(claim.param("alpha"))
    high, low = ratio_param(claim, "high"), ratio_param(claim, "low")
    r = _runs(claim, runs, run_args)
    rows = []
    for s, ar in r.mats.items():
        b = _balance(ar, high, low)
        rows.append({"seed": s, "agree highly": b["high"], "partly": b["partial"],
                     "disagree highly": b["low"],
                     **_tost(b["high"], b["low"], margin, alpha)})
    t = pd.DataFrame(rows)
    n_seeds = len(t)
    eq, out = int(t["equivalent"].sum()), int(t["outside"].sum())
    share = span(t["share"].min(), t["share"].max(), "{:.3f}")
    reproduced = (f"{span(t['agree highly'].min(), t['agree highly'].max())} pairs agree highly, "
                  f"{span(t['disagree highly'].min(), t['disagree highly'].max())} disagree "
                  f"highly: a share of {share}; equivalence shown on "
                  f"{claims.seeds_phrase(eq, n_seeds)}")
    reading = (f"agree highly: ratio at least {high:.4f}; disagree highly: below {low:.4f}; "
               f"as many: the share of the first among both within {margin:g} of 1/2, two "
               f"one-sided exact binomial tests at {alpha:g}")
    borderline = ""
    if 0 < eq < n_seeds or 0 < out < n_seeds:
        borderline = (f"the seeds disagree: equivalence shown on "
                      f"{claims.seeds_phrase(eq, n_seeds)}, the share outside the margin on "
                      f"{claims.seeds_phrase(out, n_seeds)}")
    common = dict(published="counts not significantly different",
                  reproduced=reproduced, reading=reading, borderline=borderline,
                  seeds_passed=(eq, n_seeds),
                  values={"margin": margin, "alpha": alpha, "high": high, "low": low, "per_seed": t})
    if out:
        return claim.evidence(
            comparison="claim", holds=False, **common,
            failures=[f"seed {x.seed}: share {x.share:.3f}, outside 1/2 ± {margin:g} "
                      f"(p = {x.p_outside:.3g})" for x in t[t["outside"]].itertuples()],
            detail=f"the share lies outside the margin on {claims.seeds_phrase(out, n_seeds)}")
    if eq == n_seeds:
        return claim.evidence(
            comparison="claim", holds=True, **common,
            detail=(f"equivalence p from {t['p_equivalence'].min():.3g} to "
                    f"{t['p_equivalence'].max():.3g} over {claims.plural(n_seeds, 'seed')}"))
    return claim.evidence(
        comparison="none", **common,
        detail=("not contradicted: the share is not shown to lie outside the margin, but the "
                f"equivalence test is inconclusive on {claims.seeds_phrase(n_seeds - eq, n_seeds)}"))


def balance_figure(ev: claims.Evidence) -> claims.Section:
    """The counts behind the check of evenness (:func:`check_even`) on each seed: a table, a
    line chart and a sentence."""
    import matplotlib.pyplot as plt

    t = ev.values["per_seed"]
    part = claims.Section()
    shown = t[["seed", "agree highly", "partly", "disagree highly", "share", "p_equivalence",
               "equivalent", "outside"]].rename(columns={
        "share": "share agreeing highly", "p_equivalence": "equivalence p",
        "equivalent": "within the margin (shown)", "outside": "outside the margin (shown)"})
    part.add_table("figure1_balance_per_seed", shown, float_format="{:.4f}", collapse=True,
               title="Pairs of metrics that agree and disagree highly, on each seed")
    fig, ax = plt.subplots(figsize=(7.0, 3.4))
    xs = np.arange(len(t))
    for col, mark in (("agree highly", "o-"), ("disagree highly", "s-"), ("partly", "^-")):
        ax.plot(xs, t[col], mark, label=col)
    ax.set_xticks(xs, [str(x) for x in t["seed"]])
    ax.set(xlabel="seed", ylabel="pairs of metrics")
    ax.set_ylim(0, None)
    ax.grid(alpha=0.3)
    ax.legend(loc="lower right", ncols=3)
    part.add_figure("figure1_balance_per_seed", fig, caption=(
        f"Paper A, Figure 1's text checked on {len(t)} samples: the pairs of metrics that agree "
        "highly, partly and disagree highly on each seed."),
        alt=(f"Line chart over {len(t)} seeds of three counts of metric pairs: agree highly "
             f"{span(t['agree highly'].min(), t['agree highly'].max())}, disagree highly "
             f"{span(t['disagree highly'].min(), t['disagree highly'].max())}."))
    m = ev.values["margin"]
    part.say(
        f"A pair agrees highly at a ratio of at least {ev.values['high']:.4f} and disagrees highly "
        f"below {ev.values['low']:.4f}. Over the seeds the share of highly agreeing pairs among both is "
        f"{span(t['share'].min(), t['share'].max(), '{:.3f}')}; the equivalence test asks "
        f"whether it lies between {0.5 - m:g} and {0.5 + m:g} (p from "
        f"{t['p_equivalence'].min():.3g} to {t['p_equivalence'].max():.3g}, shown when below "
        f"{ev.values['alpha']:g}).")
    return part


def check_other(claim: claims.Claim, *, runs: Runs | None = None, grid: pd.DataFrame | None = None,
                grid_ns: Sequence[int] | None = None, grid_k_shares: Sequence[float] | None = None,
                grid_pairs: int | None = None, **run_args) -> claims.Evidence:
    """Section 5.1: other lengths n and numbers k of relevant items give similar pictures.

    Every setting of the grid (``grid_ns`` times ``grid_k_shares``, ``grid_pairs`` rankings
    each; default the claim's) other than the page's own (n, k) is a case; it is similar when
    the rank correlation and the mean absolute difference of its ratios against the page's
    setting pass the claim's thresholds (``min_rank_corr``, ``max_mean_abs_diff``) on a majority
    of seeds. A case on which seeds disagree, or whose median lies within ``corr_margin`` /
    ``diff_margin`` of a threshold, is borderline. The page's own setting is shown (sampling
    alone) but not counted. Settings that fail on the paper's grid are the finding
    ``dissimilar``.
    """
    min_rank_corr = float(claim.param("min_rank_corr"))
    max_mean_abs_diff = float(claim.param("max_mean_abs_diff"))
    corr_margin, diff_margin = float(claim.param("corr_margin")), float(claim.param("diff_margin"))
    grid_ns = list(claim.params["grid_ns"] if grid_ns is None else grid_ns)
    grid_k_shares = list(claim.params["grid_k_shares"] if grid_k_shares is None else grid_k_shares)
    grid_pairs = int(claim.params["grid_pairs"] if grid_pairs is None else grid_pairs)
    r = _runs(claim, runs, run_args)
    if grid is None:
        grid = T.figure1_grid(r.mats, grid_ns, grid_k_shares, n_pairs=grid_pairs,
                              **{k: v for k, v in r.options.items() if k != "names"})
    grid = grid.copy()
    grid["similar"] = (grid["rank_corr"] >= min_rank_corr) & (grid["mean_abs_diff"]
                                                             <= max_mean_abs_diff)
    n_seeds = grid["seed"].nunique()
    points = (grid.groupby(["n", "k"], sort=False)
              .agg(share=("share", "first"), corr=("rank_corr", "median"),
                   low_corr=("rank_corr", "min"), diff=("mean_abs_diff", "median"),
                   high_diff=("mean_abs_diff", "max"), seeds=("similar", "sum"))
              .reset_index())
    points["own"] = (points["n"] == r.n) & (points["k"] == r.k)
    points["similar"] = 2 * points["seeds"] > n_seeds
    points["borderline"] = (((points["seeds"] > 0) & (points["seeds"] < n_seeds))
                            | ((points["corr"] - min_rank_corr).abs() <= corr_margin)
                            | ((points["diff"] - max_mean_abs_diff).abs() <= diff_margin))
    cases = points[~points["own"]]
    if cases.empty:
        raise ValueError("the grid holds no setting other than the page's own n and k")
    bad = cases[~cases["similar"]]
    edge = cases[cases["borderline"]]
    borderline = "; ".join(
        f"({x.n}, {x.k}) counted {'similar' if x.similar else 'not similar'}, similar on "
        f"{claims.seeds_phrase(int(x.seeds), n_seeds)}, median rank "
        f"correlation {x.corr:.4f}, median mean difference {x.diff:.4f}" for x in edge.itertuples())
    findings = []
    paper = (_at_setting(claim, r) and list(grid_ns) == list(claim.params["grid_ns"])
             and list(grid_k_shares) == list(claim.params["grid_k_shares"]))
    if len(bad) and paper:
        findings.append(claim.finding("dissimilar", evidence="\n".join(
            [f"(n, k) = ({x.n}, {x.k}): rank correlation down to {x.low_corr:.4f}, mean absolute "
             f"difference up to {x.high_diff:.4f}, similar on "
             f"{claims.seeds_phrase(int(x.seeds), n_seeds)}" for x in bad.itertuples()]
            + [f"against n = {r.n}, k = {r.k}; {int(cases['similar'].sum())} of {len(cases)} "
               f"other settings similar; {n_seeds} seeds of {grid_pairs} rankings each"]),
            readings=[f"similar: Spearman at least {min_rank_corr:g} and mean absolute "
                      f"difference at most {max_mean_abs_diff:g} on most seeds"]))
    shown = points.assign(case=np.where(points["own"], "the page's own setting (not counted)",
                                        np.where(points["similar"], "similar", "not similar")))
    shown = shown[["n", "k", "share", "low_corr", "high_diff", "seeds", "case", "borderline"]]
    shown.columns = ["n", "k", "k as a share of n", "lowest rank correlation",
                     "largest mean difference", "seeds where similar", "verdict", "borderline"]
    ev = claim.evidence(
        comparison="claim", published="similar results for other n and k",
        reproduced=(f"{int(cases['similar'].sum())} of {len(cases)} other settings similar on "
                    f"most of {claims.plural(n_seeds, 'seed')}"),
        matched=int(cases["similar"].sum()), total=len(cases), unit="cases",
        failures=[f"({x.n}, {x.k}), similar on {claims.seeds_phrase(int(x.seeds), n_seeds)}"
                  for x in bad.itertuples()] or None,
        borderline=borderline,
        reading=(f"similar: Spearman rank correlation at least {min_rank_corr:g} and mean "
                 f"absolute difference at most {max_mean_abs_diff:g} against $n = {r.n}$, "
                 f"$k = {r.k}$, on most seeds"),
        detail=(f"cases written (n, k); n = {', '.join(map(str, grid_ns))} with k = "
                + ", ".join(f"{s:.0%}" for s in grid_k_shares)
                + f" of n, {grid_pairs} rankings per sample, {claims.plural(n_seeds, 'seed')}; "
                f"the page's own setting is shown but not counted. " + WHOLE_VS_PAIRS),
        findings=findings,
        values={"points": points, "grid": grid, "min_rank_corr": min_rank_corr,
                "max_mean_abs_diff": max_mean_abs_diff})
    ev.add_table("figure1_grid", shown, float_format="{:.4f}",
                 title=f"Figure 1 at other n and k against n = {r.n}, k = {r.k}, over the seeds")
    ev.add_table("figure1_grid_per_seed", grid, show=False)
    return ev


def grid_figure(ev: claims.Evidence, n: int, k: int) -> claims.Section:
    """The two similarity measures of every grid setting and seed, against the thresholds."""
    import matplotlib.pyplot as plt

    grid, points = ev.values["grid"], ev.values["points"]
    n_seeds = grid["seed"].nunique()
    where = {(a, b): i for i, (a, b) in enumerate(zip(points["n"], points["k"]))}
    xs = np.array([where[a, b] for a, b in zip(grid["n"], grid["k"])], dtype=float)
    seeds = grid["seed"].to_numpy()
    jitter = (seeds - seeds.mean()) / (4.0 * max(1, n_seeds))
    fig, axes = plt.subplots(2, 1, figsize=(7.6, 5.6), sharex=True)
    ok = grid["similar"].to_numpy(dtype=bool)
    for ax, col, line, name in ((axes[0], "rank_corr", ev.values["min_rank_corr"], "rank correlation"),
                                (axes[1], "mean_abs_diff", ev.values["max_mean_abs_diff"],
                                 "mean difference")):
        ax.scatter(xs[ok] + jitter[ok], grid[col][ok], s=14, label="similar")
        ax.scatter(xs[~ok] + jitter[~ok], grid[col][~ok], s=14, marker="x", label="not similar")
        ax.axhline(line, color="black", lw=1, ls="--")
        ax.set_ylabel(name)
        ax.grid(alpha=0.3)
    axes[0].legend(loc="lower right")
    axes[1].set_xticks(range(len(points)),
                       [f"({a}, {b})" + ("\nown" if o else "") for a, b, o in
                        zip(points["n"], points["k"], points["own"])], fontsize=9)
    axes[1].set_xlabel("(n, k)")
    part = claims.Section()
    part.add_figure("figure1_grid", fig, caption=(
        "Paper A, Figure 1 at other lengths and numbers of relevant items, one dot per seed: "
        "the rank correlation (top) and mean absolute difference (bottom) of the agreement "
        f"ratios against $n = {n}$, $k = {k}$ (marked own: sampling alone); dashed lines are "
        "the thresholds."),
        alt=(f"Two dot plots over {len(points)} settings of n and k, {n_seeds} seeds each; "
             f"{int(points['similar'].sum())} settings within both thresholds on most seeds."))
    return part


# ----------------------------------------------------------------------------------------
# What the page's parameters allow together (its notebook's metadata "check"), checked
# before any kernel starts
# ----------------------------------------------------------------------------------------
def read_permutations_csv(path):
    """A rankings CSV whose first ranking is the reference and whose other rankings are complete
    orderings of the same items, without ties (the sample T of ``agreement_heatmap``).

    Returns the rankings numbered by the reference (:func:`rankbook.permutations.from_labels`).
    Raises ValueError naming the file and the ranking: a tie group, a partial ranking, an item
    not in the reference, or a file with a reference only.
    """
    from rankbook import consensus, permutations

    groups = consensus.read_rankings_csv(path)
    group, named = next(iter(groups.items()))
    names = list(named)
    if len(names) < 2:
        raise ValueError(f"{path} holds only the reference ranking {names[0]!r}: add at least "
                         "one ranking to compare with it")
    ref = named[names[0]]
    for name in names:
        for x in named[name]:
            if isinstance(x, frozenset):
                raise ValueError(f"{path}: ranking {name!r} ties {', '.join(sorted(map(str, x)))}; "
                                 "this notebook needs complete rankings without ties")
    for name in names[1:]:
        items = named[name]
        if len(items) != len(ref) or set(items) != set(ref):
            missing = sorted(set(ref) - set(items), key=str)
            extra = sorted(set(items) - set(ref), key=str)
            what = (f"lacks {', '.join(map(str, missing[:5]))}" if missing else "") + \
                   ("; " if missing and extra else "") + \
                   (f"holds {', '.join(map(str, extra[:5]))} not in the reference" if extra else "")
            raise ValueError(f"{path}: ranking {name!r} {what or 'differs in length'}: every "
                             f"ranking must order exactly the {len(ref)} items of the reference "
                             f"{names[0]!r} (no partial rankings)")
    if len(ref) < 2:
        raise ValueError(f"{path}: the reference ranks {len(ref)} item; at least 2 are needed")
    return permutations.from_labels(ref, *(named[n] for n in names[1:]))


def limits(values: dict, root, timeout: float) -> None:
    """k is below the number of items of pairs_csv; the sample (n_pairs x n, and twice that
    with compare_protocols) fits in memory."""
    from rankbook.ledger.paths import resolve_input_path

    if values.get("pairs_csv"):
        numbered = read_permutations_csv(resolve_input_path(values["pairs_csv"], root))
        n, n_pairs = numbered.shape[1], numbered.shape[0] - 1
        if values["k"] >= n:
            raise ValueError(f"k = {values['k']} must be below the {n} items of pairs_csv")
    else:
        n, n_pairs = values["n"], values["n_pairs"]
    # the sample and its reference (int64), the 33 metric values and their ranks (float64),
    # and the contingency work of one pair of metrics, twice with compare_protocols
    need = (2 * n_pairs * n * 8 + 3 * 33 * n_pairs * 8 + 8 * n_pairs * 8) * \
        (2 if values.get("compare_protocols") and not values.get("pairs_csv") else 1)
    within_memory(need, f"a sample of {n_pairs} rankings of {n} items",
                   "lower n_pairs or n")
