"""The sweep page (notebooks/sweep_agreement.ipynb): a few pairs of metrics followed over the
length n of the rankings, with k relevant = retrieved items as a share of n (the paper's
Figure 1: k = 30 at n = 100), each length one ``rankbook sweep`` point of the Figure 1 notebook.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from pathlib import Path


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
    frames = []
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
        frames.append(pd.read_csv(report.folder / "combined" / "agreement_matrix.csv"))
    matrices = pd.concat(frames, ignore_index=True)
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
