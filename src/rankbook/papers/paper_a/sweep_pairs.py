"""The sweep page (notebooks/sweep_agreement.ipynb): a few pairs of metrics followed over the
length n of the rankings, with k relevant = retrieved items as a share of n (the paper's
Figure 1: k = 30 at n = 100), each length one ``rankbook sweep`` point of the Figure 1 notebook.

The page checks one ledger claim (:func:`check_lengths`, which receives its ledger entry): the
text on Figure 1 says that other lengths n give similar results; read pair by pair, every pair
of distinct metrics keeps its agreement ratio at every swept length, within the claim's
``bound`` of its ratio at the reference length beyond sampling error. (The Figure 1 page reads
the same sentence picture by picture.)
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path

from rankbook.ledger import claims
from rankbook.ledger.limits import within_memory


def ks_for(ns, k_share: float) -> dict[int, int]:
    """k at each length: ``k_share`` of n, rounded, at least 1 and below n.

    >>> ks_for([10, 20, 50, 100], 0.3)
    {10: 3, 20: 6, 50: 15, 100: 30}
    >>> ks_for([4], 0.1)
    {4: 1}
    """
    if not 0 < k_share < 1:
        raise ValueError(f"k_share must lie strictly between 0 and 1, got {k_share}")
    return {int(n): min(int(n) - 1, max(1, round(k_share * n))) for n in ns}


@dataclass
class Sweep:
    """What the page shows: the ratios (tidy and one row per pair), and the sweep's counts."""

    tidy: object
    wide: object
    ks: dict
    intervals: object = None
    points: int = 0
    ran: int = 0
    reused: int = 0
    values: dict = field(default_factory=dict)

    def describe(self) -> str:
        """The page's summary sentence, from the computed ratios."""
        ns = sorted(self.ks)
        reused = f", reusing {self.reused} computed before" if self.reused else ""

        def course(r):
            first, last = f"{r.iloc[1]:.3f}", f"{r.iloc[-1]:.3f}"
            return (f"{r['pair']} stays at {first}" if first == last
                    else f"{r['pair']} goes from {first} to {last}")

        cases = "; ".join(f"({n}, {self.ks[n]})" for n in ns)
        return (f"The sweep has {self.points} points, (n, k) = {cases} (it ran {self.ran}"
                f"{reused}). From n = {ns[0]} to n = {ns[-1]}, the agreement ratio of "
                + "; ".join(course(r) for _, r in self.wide.iterrows()) + ".")


def _combined(report, stem: str) -> Path:
    """The sweep's combined table ``stem`` (a table the Figure 1 page saves under that name)."""
    return Path(report.folder) / "combined" / (stem + ".csv")


def run(ns, k_share: float, n_pairs: int, pairs, *, folder: Path, run_sweep, jobs: int = 1
        ) -> Sweep:
    """Run the Figure 1 notebook at every length of ``ns`` with k = ``k_share`` of n (one sweep
    point per length) and read the agreement ratio of each pair ``"m1/m2"``.

    ``run_sweep`` is :func:`rankbook.book.sweep.run_sweep`, passed in by the page (the papers
    layer does not import the book's machinery). Raises ``RuntimeError`` naming the first
    failing point.
    """
    import pandas as pd

    from rankbook import metrics

    ks = ks_for(ns, k_share)
    out = Sweep(tidy=None, wide=None, ks=ks)
    frames, intervals = [], []
    for n, k in ks.items():
        report = run_sweep(
            "agreement_heatmap", [("n", str(n)), ("k", str(k)), ("n_pairs", str(n_pairs)),
                                  ("compare_protocols", "False"), ("robustness", "False")],
            jobs=jobs, progress=False, folder=Path(folder) / f"n{n}", log=lambda *a: None)
        failed = [p for p in report.points if p["status"] == "failed"]
        if failed:
            raise RuntimeError(f"the sweep point n = {n}, k = {k} failed: {failed[0].get('error')}")
        out.points += len(report.points)
        out.ran += report.ran
        out.reused += report.reused
        frames.append(pd.read_csv(_combined(report, "agreement_matrix")))
        intervals.append(pd.read_csv(_combined(report, "agreement_intervals")))
    matrices = pd.concat(frames, ignore_index=True)
    iv = pd.concat(intervals, ignore_index=True)
    out.intervals = pd.DataFrame({
        "n": iv["n"].astype(int), "k": iv["k"].astype(int),
        "pair": iv["metric"] + " / " + iv["other metric"], "ratio": iv["ratio"],
        "n_effective": iv["effective pairs"]})
    label = {m: metrics.REGISTRY[m].label for m in metrics.NAMES}
    rows = []
    for pair in pairs:
        m1, m2 = pair.split("/")
        for n, k in ks.items():
            hit = matrices[(matrices["n"] == n) & (matrices["m1"] == m1)][m2]
            rows.append({"pair": f"{label[m1]} / {label[m2]}", "n": n, "k": k,
                         "agreement ratio": float(hit.iloc[0])})
    out.tidy = pd.DataFrame(rows)
    wide = out.tidy.pivot(index="pair", columns="n", values="agreement ratio")
    wide = wide.reindex([f"{label[p.split('/')[0]]} / {label[p.split('/')[1]]}" for p in pairs])
    wide = wide.reset_index()
    wide.columns = ["pair"] + [f"n = {n}, k = {ks[n]}" for n in wide.columns[1:]]
    out.wide = wide
    return out


# --------------------------------------------------------------------------------------------
# The claim: does each pair keep its ratio as n changes?
# --------------------------------------------------------------------------------------------
def sample_intervals(ns=(8, 12), k_share: float = 0.3, n_pairs: int = 60, seed: int = 0, *,
                     ks: dict | None = None):
    """The table :func:`run` reads from the sweep, computed here without it: for each length,
    every pair of distinct metrics with its ratio and effective number of independent pairs
    (:func:`rankbook.agreement.agreement_intervals_from_values` on the sample of
    :func:`rankbook.papers.paper_a.figure1.sample`, the Figure 1 notebook's defaults). ``ks``
    (``{n: k}``) replaces ``ns`` and ``k_share`` when given, e.g. a sweep's own lengths.

    >>> t = sample_intervals([6, 8], 0.3, 20)
    >>> t.groupby("n").size().tolist(), list(t.columns)
    ([528, 528], ['n', 'k', 'pair', 'ratio', 'n_effective'])
    """
    import pandas as pd

    from rankbook import agreement
    from rankbook.papers.paper_a import figure1

    frames = []
    for n, k in (ks or ks_for(ns, k_share)).items():
        s = figure1.sample(n=n, n_pairs=n_pairs, k=k, seed=seed)
        iv = agreement.agreement_intervals_from_values(s.values, s.names, reverse=s.reverse,
                                                       ties=s.ties)
        frames.append(pd.DataFrame({
            "n": n, "k": k, "pair": iv["m1"].map(figure1.label) + " / " + iv["m2"].map(
                figure1.label), "ratio": iv["ratio"], "n_effective": iv["n_effective"]}))
    return pd.concat(frames, ignore_index=True)


def replicates(ks: dict, n_pairs: int, seeds) -> list:
    """The same lengths drawn again on other seeds: one :func:`sample_intervals` table per
    seed, for :func:`check_lengths` (``replicates=``), so that its verdict does not rest on one
    sample.

    >>> [t["n"].unique().tolist() for t in replicates({6: 2, 8: 2}, 20, [1, 2])]
    [[6, 8], [6, 8]]
    """
    return [sample_intervals(n_pairs=n_pairs, seed=int(s), ks=dict(ks)) for s in seeds]


def _lengths(t, ref: int, bound: float, z: float):
    """Each length of one sample against the reference length: ``(cases, pairs)``, one row per
    length (pairs that move, mean and largest change, similar, at the edge) and one row per
    pair and length."""
    import numpy as np
    import pandas as pd

    t = t.copy()
    t["se"] = np.sqrt(t["ratio"] * (1 - t["ratio"]) / t["n_effective"])
    base = t[t["n"] == ref].set_index("pair")
    rows, pairs = [], []
    for n in sorted(int(x) for x in t["n"].unique() if int(x) != ref):
        here = t[t["n"] == n].set_index("pair").join(base[["ratio", "se"]], rsuffix="_ref",
                                                     how="inner")
        diff = (here["ratio"] - here["ratio_ref"]).abs()
        spread = np.sqrt(here["se"] ** 2 + here["se_ref"] ** 2)
        allowance = bound + z * spread
        moves = diff > allowance
        edge = (diff - allowance).abs() <= spread
        k = int(here["k"].iloc[0])
        rows.append({"n": n, "k": k, "pairs": len(here), "moving": int(moves.sum()),
                     "mean": float(diff.mean()), "largest": float(diff.max()),
                     "worst": diff.idxmax(), "similar": not moves.any(),
                     "borderline": bool((moves.any() and (edge | ~moves).all())
                                        or (not moves.any() and edge.any()))})
        pairs.append(here.assign(n=n, k=k, change=diff, moves=moves)[
            ["n", "k", "ratio", "ratio_ref", "change", "moves"]].reset_index())
    return pd.DataFrame(rows), pd.concat(pairs, ignore_index=True)


def check_lengths(claim: claims.Claim, *, intervals=None, replicates=(), reference: int | None = None,
                  ns=None, k_share: float | None = None, n_pairs: int | None = None, seed: int = 0,
                  n_seeds: int | None = None) -> claims.Evidence:
    """Section 5.1, read pair by pair: every pair of distinct metrics keeps a similar agreement
    ratio at every length n of the rankings, k kept at the same share of n.

    ``intervals`` is the table of :func:`run` (``Sweep.intervals``) or of
    :func:`sample_intervals` (computed from ``ns``, ``k_share``, ``n_pairs`` and ``seed``, default
    the claim's, when not given): ``n``, ``k``, ``pair``, ``ratio``, ``n_effective``.
    ``replicates`` are more tables of the same lengths on other seeds (:func:`replicates`; when
    ``intervals`` is computed here, ``n_seeds - 1`` of them are drawn on the seeds after
    ``seed``). The reference is the largest length (the paper's n by default). A pair *moves* at
    a length when its ratio differs from the reference by more than the claim's ``bound`` plus
    z standard errors of the difference (z of the claim's ``confidence``, two-sided; a ratio's
    standard error is the binomial one with the effective number of pairs). In one sample, a
    length is similar when no pair moves there. Over the samples, a length is similar unless it
    fails in more than half of them; it is borderline when the samples disagree, or when its
    verdict rests on pairs within one standard error of the allowance only (or it passes with
    one). Each other length is a case: every one similar (holds within tolerance), some
    (imprecise: the sentence states no number and is right about the picture), none (not
    reproduced). Failing lengths at the paper's reference are the finding ``pairs``.
    """
    from scipy import stats

    bound, confidence = float(claim.param("bound")), float(claim.param("confidence"))
    paper = claim.params["reference"]
    if intervals is None:
        ns = list(claim.params["ns"] if ns is None else ns)
        k_share = float(claim.params["k_share"] if k_share is None else k_share)
        n_pairs = int(claim.params["n_pairs"] if n_pairs is None else n_pairs)
        n_seeds = int(claim.params["n_seeds"] if n_seeds is None else n_seeds)
        intervals = sample_intervals(ns, k_share, n_pairs, seed)
        if not replicates and n_seeds > 1:
            replicates = globals()["replicates"](
                {int(n): int(k) for n, k in intervals.groupby("n")["k"].first().items()},
                n_pairs, range(seed + 1, seed + n_seeds))
    samples = [t.dropna(subset=["ratio"]) for t in [intervals, *replicates]]
    lengths = sorted(int(n) for n in samples[0]["n"].unique())
    if len(lengths) < 2:
        raise ValueError(f"the claim compares lengths: give at least two, got {lengths}")
    ref = int(reference) if reference is not None else lengths[-1]
    if ref not in lengths:
        raise ValueError(f"reference length {ref} is not swept; swept: {lengths}")
    for i, t in enumerate(samples[1:], start=1):
        if sorted(int(n) for n in t["n"].unique()) != lengths:
            raise ValueError(f"replicate {i} has lengths {sorted(t['n'].unique().tolist())}, "
                             f"not the swept {lengths}")
    z = float(stats.norm.ppf(0.5 + confidence / 2))
    k_ref = int(samples[0][samples[0]["n"] == ref]["k"].iloc[0])
    cases, pairs = _lengths(samples[0], ref, bound, z)
    others = [_lengths(t, ref, bound, z)[0] for t in samples[1:]]
    failing = (~cases["similar"]).astype(int).to_numpy()
    for other in others:
        failing = failing + (~other["similar"]).astype(int).to_numpy()
    n_samples = len(samples)
    cases["failing"] = failing
    cases["similar"] = 2 * failing <= n_samples
    cases["borderline"] = cases["borderline"] | ((failing > 0) & (failing < n_samples))
    bad, edge = cases[~cases["similar"]], cases[cases["borderline"]]
    of = f"; it fails in {{}} of {n_samples} samples" if n_samples > 1 else ""
    failed = [f"({x.n}, {x.k}): {x.moving} of {x.pairs} pairs move, most {x.worst} "
              f"(by {x.largest:.3f})" + of.format(x.failing) for x in bad.itertuples()]
    samples_said = (f"{n_samples} samples per length (the first one's pairs shown)"
                    if n_samples > 1 else "one sample per length")
    findings = []
    if len(bad) and (ref, k_ref) == (int(paper["n"]), int(paper["k"])):
        findings.append(claim.finding("pairs", evidence="\n".join(
            [f"(n, k) = ({x.n}, {x.k}): {x.moving} of {x.pairs} pairs of metrics move beyond "
             f"{bound:g} and sampling error, mean change {x.mean:.3f}, largest {x.largest:.3f} "
             f"({x.worst})" + of.format(x.failing) for x in bad.itertuples()]
            + [f"against n = {ref}, k = {k_ref}; {samples_said}"]),
            readings=[f"similar, pair by pair: within {bound:g} of the ratio at n = {ref}, "
                      f"beyond a {confidence:.0%} sampling allowance"]))
    columns = {"pairs": "pairs of metrics", "moving": "pairs that move",
               "mean": "mean change", "largest": "largest change",
               "worst": "pair that moves most", "similar": "similar at this length"}
    if n_samples > 1:
        columns["failing"] = f"samples with a pair that moves (of {n_samples})"
    shown = cases.drop(columns=[] if n_samples > 1 else ["failing"]).rename(
        columns=columns)
    moved = (pairs[pairs["moves"]].drop(columns="moves")
             .sort_values(["n", "change"], ascending=[True, False]))
    moved = moved.rename(columns={"ratio": "ratio at n", "ratio_ref": f"ratio at n = {ref}"})
    edge_why = ("rests on pairs within one standard error of the allowance, or the samples "
                "disagree" if n_samples > 1 else
                "rests on pairs within one standard error of the allowance")
    ev = claim.evidence(
        comparison="noise", published="similar results at other lengths n",
        reproduced=(f"{int(cases['similar'].sum())} of {claims.plural(len(cases), 'other length')}"
                    f" with no pair of metrics that moves (against n = {ref}, k = {k_ref})"),
        matched=int(cases["similar"].sum()), total=len(cases),
        unit="lengths" if len(cases) > 1 else "length",
        borderline="; ".join(f"({x.n}, {x.k}) {edge_why}" for x in edge.itertuples()),
        reading=(f"similar, pair by pair: every pair's ratio within {bound:g} of its ratio at "
                 f"$n = {ref}$, $k = {k_ref}$, beyond a {confidence:.0%} sampling allowance"),
        detail=(("lengths where pairs move: " + "; ".join(failed) + ". " if failed else "")
                + f"cases written (n, k), k the same share of n; every pair of distinct metrics "
                f"({int(cases['pairs'].iloc[0])}), {samples_said}, a length failing when it "
                "fails in more than half of them. " + _figure1().WHOLE_VS_PAIRS),
        findings=findings, values={"reference": (ref, k_ref), "z": z, "samples": n_samples})
    ev.add_table("sweep_lengths", shown, float_format="{:.3f}",
                 title=f"Each length against n = {ref}: the pairs of metrics that move (in the "
                       "sweep's sample; the last column counts the samples)")
    ev.add_table("sweep_moved_pairs", moved, float_format="{:.3f}", collapse=True,
                 title="The pairs that move, largest change first")
    return ev


def _figure1():
    from rankbook.papers.paper_a import figure1

    return figure1


# ----------------------------------------------------------------------------------------
# What the page's parameters allow together (its notebook's metadata "check"), checked
# before any kernel starts
# ----------------------------------------------------------------------------------------
def limits(values: dict, root, timeout: float) -> None:
    """k = k_share of n is at least 1 and below n at every length in ns; every pair names two
    metrics; the samples of the points that run at once (jobs of them) fit in memory."""
    from rankbook import metrics
    

    ks = ks_for(values["ns"], values["k_share"])
    for pair in values["pairs"]:
        parts = pair.split("/")
        bad = [p for p in parts if p not in metrics.NAMES]
        if len(parts) != 2 or bad:
            raise ValueError(f"pairs: {pair!r} is not m1/m2 with two metric names "
                             f"({', '.join(bad) or 'two names needed'}); names: "
                             f"{', '.join(metrics.NAMES)}")
    n = max(values["ns"])
    from rankbook.papers.paper_a.figure1 import limits as agreement_limits

    agreement_limits({"n": n, "n_pairs": values["n_pairs"], "k": ks[n],
                       "compare_protocols": False, "pairs_csv": ""}, root, timeout)
    # the points run at once, one per worker (jobs, at most one per length): each holds its
    # sample (as agreement_heatmap counts it) and a worker process (about 200 MB measured)
    workers = max(1, min(values["jobs"], len(values["ns"])))
    n_pairs = values["n_pairs"]
    point = 2 * n_pairs * n * 8 + 3 * 33 * n_pairs * 8 + 8 * n_pairs * 8 + 200 * 2**20
    within_memory(workers * point, f"{workers} sweep points at once (jobs = {values['jobs']}), "
                   f"each a sample of {n_pairs} rankings of up to {n} items",
                   "lower jobs, n_pairs or the largest of ns")
