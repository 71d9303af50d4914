"""The authors' per-topic scores, and the appendix's run names.

The authors' results folder (fetched by :func:`rankbook.ledger.fetch.files`; its files carry no
licence, so rankbook never commits them) holds one CSV per system, measure and experiment: a
row per topic, a column per run. Runs are numbered by *constellation* (1-50); the appendix names
20 of them ``tf_1`` ... ``C_5`` (the source's ``constellations.csv`` transcription, from the
repository's README). Three kinds of file:

``replicated``
    Core17 (50 topics): the original run's column (``WCrobust04`` or ``WCrobust0405``) and the
    50 replicated runs ``rpl_<system>_<n>``;
``original``
    Core17: the original run alone (the same scores as the column above);
``reproduced``
    Core18 (25 topics): the 50 reproduced runs ``rpd_<system>_<n>``.
"""

from __future__ import annotations

import re
from pathlib import Path

import pandas as pd

__all__ = ["LAYOUT", "SYSTEMS", "MEASURES", "token", "files_rbo_p", "read_constellations",
           "run_key", "Scores", "tidy"]

#: File names of the authors' results folder, by kind (the repository's own layout).
LAYOUT = {
    "replicated": "measures/rpl_{system}_{measure}.csv",
    "original": "measures_rpd/org_{system}_{measure}.csv",
    "reproduced": "measures_rpd/rpd_{system}_{measure}.csv",
}
#: The two original runs: the baseline and the advanced system, as the files name them.
SYSTEMS = {"baseline": "wcrobust04", "advanced": "wcrobust0405"}
_ORIGINAL_COLUMN = {"wcrobust04": "WCrobust04", "wcrobust0405": "WCrobust0405"}
_PREFIX = {"replicated": "rpl", "reproduced": "rpd"}
#: The appendix's three effectiveness measures and the files' tokens for them (nDCG is the
#: files' nDCG at 1000, the tables' "nDCG" as the authors' table scripts read it).
MEASURES = {"P@10": "p10", "AP": "ap", "nDCG": "ndcg1000"}


def token(measure: str) -> str:
    """The authors' file token of a measure name.

    ``P@k``, ``nDCG@k``, ``ERR@k``, ``tau@k`` (Kendall's τ at cut-off k), ``RBO@k`` (RBO with
    p = 0.8 at depth k, the only persistence the files hold), ``AP``, ``nDCG`` (at 1000).

    Examples
    --------
    >>> token("P@10"), token("nDCG@20"), token("tau@1000"), token("RBO@5"), token("AP")
    ('p10', 'ndcg20', 'kendalls_tau_1000', 'rbo_5_p08', 'ap')
    """
    if measure in MEASURES:
        return MEASURES[measure]
    m = re.fullmatch(r"(P|nDCG|ERR|tau|RBO)@([0-9]+)", str(measure))
    if not m:
        raise ValueError(f"unknown measure {measure!r}; valid: {sorted(MEASURES)} or P@k, "
                         "nDCG@k, ERR@k, tau@k, RBO@k")
    name, k = m.groups()
    return {"P": f"p{k}", "nDCG": f"ndcg{k}", "ERR": f"err{k}", "tau": f"kendalls_tau_{k}",
            "RBO": f"rbo_{k}_p08"}[name]


def files_rbo_p() -> float:
    """The persistence of the RBO values in the authors' files, read from their name
    (``rbo_<k>_p08``: p = 0.8).

    Examples
    --------
    >>> files_rbo_p()
    0.8
    """
    digits = re.search(r"_p([0-9]+)$", token("RBO@1")).group(1)
    return float(f"{digits[0]}.{digits[1:]}")  # p08 is 0.8 written without its point


def read_constellations(path) -> pd.DataFrame:
    """The appendix's run names against the files' constellation numbers.

    Returns
    -------
    pandas.DataFrame
        Columns ``family``, ``index``, ``constellation`` and ``name`` (``tf_1``, ...).
    """
    t = pd.read_csv(path, comment="#", dtype={"family": str})
    need = {"family", "index", "constellation"}
    if not need <= set(t.columns):
        raise ValueError(f"{path}: columns {sorted(need)} needed, got {list(t.columns)}")
    t["name"] = t["family"] + "_" + t["index"].astype(str)
    if t["name"].duplicated().any() or t["constellation"].duplicated().any():
        raise ValueError(f"{path}: a run name or constellation appears twice")
    return t


def run_key(printed_run: str) -> str | None:
    """The appendix run name of a printed row (``rpl_wcr0405_tf_1`` -> ``tf_1``; ``rpd_C_3`` ->
    ``C_3``), or None for the original run's row.

    Examples
    --------
    >>> run_key("rpl_wcr0405_tol_2"), run_key("rpd_C_3"), run_key("WCrobust0405")
    ('tol_2', 'C_3', None)
    """
    m = re.search(r"_([A-Za-z]+_[0-9]+)$", printed_run)
    return m.group(1) if m else None


class Scores:
    """The per-topic scores in one fetched folder, read on demand and kept.

    Parameters
    ----------
    folder : path-like
        The authors' results folder (``measures/`` and ``measures_rpd/`` inside).
    constellations : pandas.DataFrame
        :func:`read_constellations`.
    tokens : dict, optional
        Overrides of :data:`MEASURES` (a test swaps a measure's file this way).
    """

    def __init__(self, folder, constellations: pd.DataFrame, tokens: dict | None = None):
        self.folder = Path(folder)
        self.constellations = constellations
        self.number = dict(zip(constellations["name"], constellations["constellation"]))
        self.tokens = {**MEASURES, **(tokens or {})}
        self._frames: dict = {}

    def _token(self, measure):
        return self.tokens[measure] if measure in self.tokens else token(measure)

    def frame(self, kind: str, system: str, measure: str) -> pd.DataFrame:
        """One file: topics (as strings) by runs."""
        if kind not in LAYOUT:
            raise ValueError(f"unknown kind {kind!r}; valid: {sorted(LAYOUT)}")
        if system not in _ORIGINAL_COLUMN:
            raise ValueError(f"unknown system {system!r}; valid: {sorted(_ORIGINAL_COLUMN)}")
        key = (kind, system, self._token(measure))
        if key not in self._frames:
            path = self.folder / LAYOUT[kind].format(system=system, measure=key[2])
            t = pd.read_csv(path)
            t = t.set_index(t.columns[0])
            t.index = t.index.astype(str)
            t.index.name = "topic"
            self._frames[key] = t
        return self._frames[key]

    def original(self, system: str, measure: str) -> pd.Series:
        """The original run's per-topic scores on Core17."""
        return self.frame("replicated", system, measure)[_ORIGINAL_COLUMN[system]]

    def run(self, kind: str, system: str, measure: str, name: str) -> pd.Series:
        """The per-topic scores of the appendix run ``name`` (``tf_1``, ...), replicated
        (Core17) or reproduced (Core18)."""
        if kind not in _PREFIX:
            raise ValueError(f"a run is 'replicated' or 'reproduced', got {kind!r}")
        if name not in self.number:
            raise ValueError(f"unknown run {name!r}; valid: {sorted(self.number)}")
        col = f"{_PREFIX[kind]}_{system}_{self.number[name]}"
        return self.frame(kind, system, measure)[col]

    def runs(self, kind: str, system: str, measure: str, names) -> pd.DataFrame:
        """Several runs side by side (topics by run names)."""
        return pd.DataFrame({n: self.run(kind, system, measure, n) for n in names})


def tidy(scores: Scores, measures=("P@10", "AP", "nDCG")) -> pd.DataFrame:
    """Every per-topic score of the appendix's runs in one long table.

    Returns
    -------
    pandas.DataFrame
        Columns ``collection`` (Core17, Core18), ``system`` (baseline, advanced), ``run``
        (``original`` or ``tf_1`` ...), ``measure``, ``topic``, ``score``.
    """
    rows = []
    names = list(scores.constellations["name"])
    for role, system in SYSTEMS.items():
        for m in measures:
            o = scores.original(system, m)
            rows.append(pd.DataFrame({"collection": "Core17", "system": role, "run": "original",
                                      "measure": m, "topic": o.index, "score": o.values}))
            for kind, coll in (("replicated", "Core17"), ("reproduced", "Core18")):
                t = scores.runs(kind, system, m, names).melt(ignore_index=False,
                                                             var_name="run", value_name="score")
                t = t.reset_index().assign(collection=coll, system=role, measure=m)
                rows.append(t[["collection", "system", "run", "measure", "topic", "score"]])
    return pd.concat(rows, ignore_index=True)
