"""Appendix Tables 1-3 recomputed from the authors' per-topic scores, cell by cell.

Each cell is recomputed with rankbook's own measures and tests:

* ARP (the mean score over the topics): the mean of the per-topic scores;
* Kendall's τ and RBO (Table 1): the mean over topics of the authors' per-topic values at depth
  1000 (RBO with p = 0.8), which the files hold (the runs themselves are not distributed); the
  original run's row is a run against itself, computed with :func:`rankbook.repro.ktu` and
  :func:`rankbook.repro.rbo` on a list of ``depth`` documents;
* RMSE: :func:`rankbook.repro.rmse` of the replicated against the original per-topic scores;
* p-values: Table 1's paired t-test with :func:`rankbook.stats.paired_test` (``test="t"``);
  Tables 2 and 3's unpaired t-test, Student's with pooled variance (what Matlab's ``ttest2``
  computes by default), with :func:`scipy.stats.ttest_ind` (rankbook has no unpaired test of its
  own). Table 2 compares the original run (Core17, 50 topics) with each reproduced run (Core18,
  25 topics); Table 3 the replicated run (Core17) with the reproduced run (Core18) of the same
  constellation, for each system.

The checks grade every printed cell with :func:`rankbook.papers.breuer2020.printed.grade` under
the claim's rule (``claim.params``): rounded at ``decimals`` decimals, p-values shortened to the
printed digits by any rule of ``p_rules``.
"""

from __future__ import annotations

import numpy as np
import pandas as pd
from scipy import stats as _sps

from rankbook import repro
from rankbook.stats import paired_test

from . import printed
from .data import SYSTEMS, Scores, read_constellations, run_key

__all__ = ["read_published", "recompute_table_1", "recompute_table_2", "recompute_table_3",
           "grade_table", "discrepancies", "rule_table", "check_table_1", "check_table_2",
           "check_table_3", "check_significance_share", "moved_cell", "scores_of", "show_table"]

_MEASURE = {"P@10": "P@10", "AP": "AP", "nDCG": "nDCG"}
_TESTS = ("paired", "unpaired")


def read_published(path) -> pd.DataFrame:
    """A transcribed appendix table (the source's ``table_<n>.csv``), printed
    strings kept as text."""
    t = pd.read_csv(path, comment="#", dtype={"printed": str, "run": str, "block": str,
                                              "measure": str})
    need = {"row", "run", "block", "measure", "printed"}
    if not need <= set(t.columns):
        raise ValueError(f"{path}: columns {sorted(need)} needed, got {list(t.columns)}")
    return t


_SCORES: dict = {}


def scores_of(claim, tokens: dict | None = None) -> Scores:
    """The authors' scores of a claim's ``scores`` and ``constellations`` data, read once per
    folder."""
    folder = claim.path("scores")
    names = claim.path("constellations")
    key = (str(folder), str(names), tuple(sorted((tokens or {}).items())))
    if key not in _SCORES:
        _SCORES[key] = Scores(folder, read_constellations(names), tokens)
    return _SCORES[key]


def _unpaired_p(a, b) -> float:
    return float(_sps.ttest_ind(np.asarray(a, float), np.asarray(b, float)).pvalue)


def _paired_p(a, b) -> float:
    return float(paired_test(np.asarray(a, float), np.asarray(b, float), "t",
                             n_resamples=1000).pvalue)


def _identity(docs: int, rbo_p: float) -> dict:
    """τ, RBO, RMSE and the paired p-value of a run against itself."""
    names = [f"d{i}" for i in range(int(docs))]
    same = np.linspace(0.0, 1.0, 5)
    return {"tau": repro.ktu(names, names), "RBO": repro.rbo(names, names, rbo_p),
            "RMSE": repro.rmse(same, same), "p-value": _paired_p(same, same)}


def recompute_table_1(published: pd.DataFrame, scores: Scores, *, system: str = "advanced",
                      depth: int, rbo_p: float, test: str = "paired") -> np.ndarray:
    """The recomputed value of every cell of ``published`` (Table 1's layout: blocks ARP,
    Correlation, RMSE, p-value), in its order."""
    if test not in _TESTS:
        raise ValueError(f"unknown test {test!r}; valid: {list(_TESTS)}")
    sys_ = SYSTEMS[system]
    ident = _identity(depth, rbo_p)
    out = []
    for r in published.itertuples():
        name = run_key(r.run)
        if r.block == "Correlation":
            m = f"{'tau' if r.measure == 'tau' else 'RBO'}@{int(depth)}"
            out.append(ident[r.measure] if name is None else
                       float(scores.run("replicated", sys_, m, name).mean()))
            continue
        o = scores.original(sys_, _MEASURE[r.measure])
        if name is None:
            out.append(float(o.mean()) if r.block == "ARP" else ident[r.block])
            continue
        x = scores.run("replicated", sys_, _MEASURE[r.measure], name).loc[o.index]
        if r.block == "ARP":
            out.append(float(x.mean()))
        elif r.block == "RMSE":
            out.append(repro.rmse(o.values, x.values))
        elif r.block == "p-value":
            out.append(_paired_p(o.values, x.values) if test == "paired"
                       else _unpaired_p(o.values, x.values))
        else:
            raise ValueError(f"unknown block {r.block!r} in Table 1")
    return np.array(out, dtype=float)


def recompute_table_2(published: pd.DataFrame, scores: Scores, *, system: str = "advanced",
                      test: str = "unpaired") -> np.ndarray:
    """Table 2: ARP of each reproduced run (Core18) and the unpaired t-test of the original run
    (Core17) against it."""
    if test not in _TESTS:
        raise ValueError(f"unknown test {test!r}; valid: {list(_TESTS)}")
    sys_ = SYSTEMS[system]
    out = []
    for r in published.itertuples():
        m = _MEASURE[r.measure]
        x = scores.run("reproduced", sys_, m, run_key(r.run))
        if r.block == "ARP":
            out.append(float(x.mean()))
        elif r.block == "p-value":
            o = scores.frame("original", sys_, m).iloc[:, 0]
            if test == "unpaired":
                out.append(_unpaired_p(o.values, x.values))
            else:  # a paired test on the topics both collections share (the mutants' reading)
                common = o.index.intersection(x.index)
                out.append(_paired_p(o.loc[common].values, x.loc[common].values))
        else:
            raise ValueError(f"unknown block {r.block!r} in Table 2")
    return np.array(out, dtype=float)


def recompute_table_3(published: pd.DataFrame, scores: Scores, *,
                      welch: bool = False) -> np.ndarray:
    """Table 3: for each system (the block) the unpaired t-test of the replicated run (Core17)
    against the reproduced run (Core18) of the same constellation."""
    out = []
    for r in published.itertuples():
        sys_ = r.block.lower()
        if sys_ not in SYSTEMS.values():
            raise ValueError(f"unknown system {r.block!r} in Table 3; valid: "
                             f"{sorted(SYSTEMS.values())}")
        m = _MEASURE[r.measure]
        a = scores.run("replicated", sys_, m, run_key(r.run)).values
        b = scores.run("reproduced", sys_, m, run_key(r.run)).values
        out.append(float(_sps.ttest_ind(a, b, equal_var=not welch).pvalue))
    return np.array(out, dtype=float)


def _rule_params(params: dict) -> dict:
    """The numbers of a claim's rule: ``decimals``, and for a claim with p-values
    ``p_decimals``, ``p_switch`` and ``p_digits`` (unused otherwise)."""
    keys = ("p_decimals", "p_switch", "p_digits")
    return {"decimals": params["decimals"],
            **{k: params.get(k) if not params.get("p_blocks") else params[k] for k in keys}}


def grade_table(published: pd.DataFrame, recomputed, *, p_blocks, rules, p_rules,
                **params) -> pd.DataFrame:
    """The per-cell comparison: ``published`` with ``recomputed``, each rule's shortening,
    ``agrees``, ``off_units`` and ``kind`` (see :func:`printed.grade`)."""
    cells = published.assign(recomputed=np.asarray(recomputed, float),
                             is_p=published["block"].isin(list(p_blocks)))
    return printed.grade(cells, rules=rules, p_rules=p_rules, **params)


def rule_table(graded: pd.DataFrame) -> pd.DataFrame:
    """For each block, how many cells each rule of shortening reproduces alone."""
    return printed.rule_counts(graded, ["block"])


def _cell_name(r) -> str:
    return f"row `{r.run}`, {r.block} {r.measure}"


def discrepancies(graded: pd.DataFrame) -> pd.DataFrame:
    """Every disagreeing cell as a candidate erratum: where, kind, proposed severity and the
    evidence, computed from the values."""
    rows = []
    for r in graded[~graded["agrees"]].itertuples():
        kind = "typo" if r.kind == "typo" else "inconsistent table"
        ev = (f"printed {r.printed}; recomputed {r.recomputed:.6g}, cut {r.cut}, rounded "
              f"{r.round}; {r.off_units:+.1f} units of the printed last digit")
        if kind == "typo":
            ev += (f"; the printed text has more significant digits than its style prints, and "
                   f"its first digit and exponent are those of {r.cut if r.cut[0] == r.printed[0] else r.round}")
        rows.append({"where": _cell_name(r), "printed": r.printed, "recomputed": r.recomputed,
                     "kind": kind, "severity": "imprecise", "evidence": ev})
    return pd.DataFrame(rows, columns=["where", "printed", "recomputed", "kind", "severity",
                                       "evidence"])


def _finding(claim, role, evidence):
    """The claim's finding for ``role``, or None when its ledger entry has no erratum with that
    role (the build then reports a failing claim without its erratum)."""
    try:
        return claim.finding(role, evidence=evidence)
    except (KeyError, ValueError):
        return None


def _conventions(graded: pd.DataFrame) -> list[tuple[str, int, int, int]]:
    """(block, cells, cut, round) of each p-value block."""
    out = []
    for block, g in graded[graded["is_p"]].groupby("block", sort=False):
        out.append((block, len(g), int((g["cut"] == g["printed"]).sum()),
                    int((g["round"] == g["printed"]).sum())))
    return out


def moved_cell(claim, **smoke) -> dict:
    """Mutant: the first printed cell moved by one unit of its last digit."""
    return {"move_cells": 1}


def show_table(ev, stem: str, frame: pd.DataFrame, **options) -> pd.DataFrame:
    """Attach a table the page shows: through ``ev.add_table`` where the evidence has it (the
    ledger API), else into ``ev.tables``."""
    if hasattr(ev, "add_table"):
        return ev.add_table(stem, frame, **options)
    ev.tables[stem] = frame
    return frame


def _moved(published: pd.DataFrame, n) -> pd.DataFrame:
    if not n:
        return published
    out = published.copy()
    idx = out.index if n < 0 else out.index[:int(n)]
    out.loc[idx, "printed"] = [printed.bump(p) for p in out.loc[idx, "printed"]]
    return out


def _corrected(g: pd.DataFrame) -> pd.DataFrame:
    """The printed frame with each typo replaced by the shortening it evidently meant (the one
    sharing its first digit and exponent)."""
    out = g[["row", "run", "block", "measure", "printed"]].copy()
    for i, r in g[g["kind"] == "typo"].iterrows():
        out.loc[i, "printed"] = r["cut"] if r["cut"][0] == r["printed"][0] else r["round"]
    return out


def _check(claim, recompute, *, published=None, tokens=None, move_cells: int = 0,
           correct_typos: bool = False, reprinted: bool = False, **recompute_kwargs):
    params = claim.params
    pub = published if published is not None else read_published(claim.path("published"))
    pub = pub[pub["block"].isin(params["blocks"])].reset_index(drop=True)
    pub = _moved(pub, move_cells)
    rec = recompute(pub, scores_of(claim, tokens), **recompute_kwargs)
    p_blocks = params.get("p_blocks", [])
    rules, p_rules = params["rules"], params.get("p_rules", [])
    g = grade_table(pub, rec, p_blocks=p_blocks, rules=rules, p_rules=p_rules,
                    **_rule_params(params))
    if reprinted:  # every cell printed anew from the recomputed value (cut p-values)
        pub = pub.assign(printed=[r["cut"] if r["is_p"] else r["round"] for _, r in g.iterrows()])
        g = grade_table(pub, rec, p_blocks=p_blocks, rules=rules, p_rules=p_rules,
                        **_rule_params(params))
    if correct_typos:
        pub = _corrected(g)
        g = grade_table(pub, rec, p_blocks=p_blocks, rules=rules, p_rules=p_rules,
                        **_rule_params(params))
    matched, total = int(g["agrees"].sum()), len(g)
    alternatives = None
    if p_blocks:
        alternatives = {}
        for label, only in (("rounded only", ["round"]), ("cut only", ["cut"])):
            alt = grade_table(pub, rec, p_blocks=p_blocks, rules=rules, p_rules=only,
                              **_rule_params(params))
            alternatives[label] = int(alt["agrees"].sum())
    ev = claim.evidence(
        comparison="exact", matched=matched, total=total, unit="cells",
        published=f"{total} printed cells ({', '.join(params['blocks'])})",
        reproduced=f"{matched} of {total} equal the recomputed values shortened by the rule",
        alternatives=alternatives,
        reading=("p-values cut or rounded to the printed digits" if alternatives else None),
        detail="; ".join(f"{_cell_name(r)}: printed {r.printed}, recomputed {r.recomputed:.6g}"
                         for r in g[~g["agrees"]].itertuples()))
    for r in g[~g["agrees"]].itertuples():
        text = discrepancies(g.loc[[r.Index]])["evidence"].iloc[0]
        f = _finding(claim, "typo" if r.kind == "typo" else "off", f"{_cell_name(r)}: {text}")
        if f is not None:
            ev.findings.append(f)
    conv = _conventions(g)
    if conv:
        cut_wins = [c > rd for _, _, c, rd in conv]
        text = "; ".join(f"{b}: {c} of {n} cells are the recomputed p-value cut, {rd} rounded"
                         for b, n, c, rd in conv)
        role = "cut" if all(cut_wins) else ("two_conventions" if any(cut_wins) else None)
        if role:
            f = _finding(claim, role, text)
            if f is not None:
                ev.findings.append(f)
    allowed = [p_rules if isp else rules for isp in g["is_p"]]
    by_rule = [r["printed"] if r["agrees"] else " or ".join(dict.fromkeys(r[x] for x in rs))
               for (_, r), rs in zip(g.iterrows(), allowed)]
    shown = g.assign(**{"recomputed, shortened by the rule": by_rule})[
        ["row", "run", "block", "measure", "printed", "recomputed",
         "recomputed, shortened by the rule", "round", "cut", "agrees", "off_units"]].rename(
        columns={"round": "rounded", "off_units": "off by (units of the last digit)"})
    show_table(ev, "cells", shown, title="Every printed cell beside its recomputation",
               collapse=True)
    show_table(ev, "rules", rule_table(g),
               title="How many cells each rule of shortening reproduces alone")
    ev.values["graded"] = g
    return ev


def check_table_1(claim, *, published=None, tokens=None, test: str = "paired",
                  move_cells: int = 0):
    """Appendix Table 1 (replicability of WCrobust0405): the claim's blocks of cells, each
    printed value against its recomputation (``claim.params``: ``blocks``, ``decimals``,
    ``rules``, ``p_blocks``, ``p_rules``, ``p_decimals``, ``p_switch``, ``p_digits``, ``depth``,
    ``rbo_p``)."""
    p = claim.params
    return _check(claim, recompute_table_1, published=published, tokens=tokens,
                  move_cells=move_cells, depth=p["depth"], rbo_p=p["rbo_p"], test=test)


def check_table_2(claim, *, published=None, tokens=None, test: str = "unpaired",
                  move_cells: int = 0, correct_typos: bool = False):
    """Appendix Table 2 (reproducibility of WCrobust0405 on Core18): ARP and the unpaired
    t-test's p-values (``correct_typos`` reads each typo as the value it evidently meant)."""
    return _check(claim, recompute_table_2, published=published, tokens=tokens,
                  move_cells=move_cells, correct_typos=correct_typos, test=test)


def check_table_3(claim, *, published=None, tokens=None, welch: bool = False,
                  move_cells: int = 0, reprinted: bool = False):
    """Appendix Table 3: the unpaired t-test between the same system's runs on the two
    collections, for WCrobust04 and WCrobust0405 (``reprinted``: every cell printed anew from
    its recomputed value, a mutant that must hold)."""
    return _check(claim, recompute_table_3, published=published, tokens=tokens,
                  move_cells=move_cells, reprinted=reprinted, welch=welch)


def check_significance_share(claim, *, published=None, tokens=None, welch: bool = False):
    """Table 3's caption: most of its p-values are low. Holds when more than ``most`` of the
    recomputed p-values lie below ``alpha`` (``claim.params``)."""
    alpha, most = claim.params["alpha"], claim.params["most"]
    pub = published if published is not None else read_published(claim.path("published"))
    rec = recompute_table_3(pub, scores_of(claim, tokens), welch=welch)
    low = int((rec < alpha).sum())
    share = low / len(rec)
    by = pub.assign(low=rec < alpha).groupby("block", sort=False)["low"].agg(["sum", "size"])
    ev = claim.evidence(
        comparison="claim", holds=bool(share > most), matched=None, total=None,
        published="most of the p-values are low",
        reproduced=(f"{share:.0%} of the recomputed p-values lie below {alpha:g} ("
                    + ", ".join(f"{b}: {int(r['sum'])} out of {int(r['size'])}"
                                for b, r in by.iterrows()) + ")"))
    show_table(ev, "share", by.reset_index().rename(columns={"sum": f"p < {alpha:g}",
                                                            "size": "cells"}),
               title="Recomputed p-values of Table 3 below the level, per system")
    return ev
