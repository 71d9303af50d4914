r"""Qrels and runs scored under the conventions of trec_eval, pytrec_eval, ir_measures, ranx,
scikit-learn or torchmetrics: :func:`evaluate_run` and the seven profiles (trec_eval 10.0 and
9.0.8 apart).

The IR tools agree on the formulas and disagree, quietly, on everything around them: which of
two equally scored documents comes first, whether a document judged ``-1`` counts as judged,
what a query without relevant documents scores, whether a query missing from the run counts,
what P@10 of a five-document list divides by, which relevance values count as gains and
whether queries are averaged or pooled. A :class:`Convention` fixes each of these choices the
way one tool makes it, so that a number computed here is the number that tool would print
(trec_eval issue 22, pytrec_eval issue 56, ir_measures issue 18, scikit-learn issue 29521 and
torchmetrics issue 3216 {cite}`trec_eval_issue22,pytrec_eval_issue56,ir_measures_issue18,sklearn_issue29521,torchmetrics_issue3216`
report the differences users tripped over).

Measures are named as ir_measures writes them {cite}`macavaney2022irmeasures`: ``nDCG``,
``nDCG@10``, ``AP``, ``AP@100``, ``RR``, ``RR@10``, ``P@5``, ``R@100``, ``Rprec``,
``Success@10``, ``Judged@10``, with parameters in parentheses: ``P(rel=2)@5`` (a document is
relevant when its relevance is at least ``rel``, default 1) and ``nDCG(dcg='exp-log2')@10``
(gain :math:`2^{r}-1` instead of :math:`r`). ``DCG`` (ranx, scikit-learn) and ``LRAP``
(scikit-learn's label ranking average precision) are also available under the profiles that
have them. Every other measure of trec_eval's ``-m all_trec`` is there too
(:mod:`rankbook.trec_measures`: ``Bpref``, ``infAP``, ``IPrec@0.1``, ``SetF``, ``NumRel``, ...,
and the trec_eval-only ``G``, ``Rndcg``, ``rbp``, ``unj@5``, ...), with gdeval's ``ERR@k``, and
each may be written as trec_eval prints it (``map``, ``P_10``, ``ndcg_cut_10``,
``iprec_at_recall_0.10``, ``set_F``: :data:`TREC_EVAL_NAMES`). A profile offers exactly the
measures its tool offers; asking for another raises a ``ValueError`` that names the nearest one
it offers (or, for a measure no profile computes, the nearest rankbook computes).

The profiles
------------
Each choice is quoted from the peer's own source (file and function); the same table is
:func:`conventions_table` and is shown in the book ("Where the tools disagree").

.. list-table::
   :header-rows: 1

   * - setting
     - trec_eval 9.0.8 / pytrec_eval (``trec_eval_9``)
     - ir_measures
     - ranx
     - sklearn
     - torchmetrics
   * - order of tied scores
     - document id descending (``form_res_rels.c: comp_sim_docno``); scores are C ``float``,
       so scores equal in single precision tie
     - as pytrec_eval; ``RR@k`` and ``Judged`` ascending document id (``msmarco_provider.py``,
       ``judged_provider.py``)
     - numba's quicksort of the negated scores in input order: input order for up to 15
       documents (``data_structures/common.py: sort_dict_by_value``)
     - averaged over the tied group for (n)DCG (``_ranking.py: _tie_average_dcg``); one
       threshold per tied group for AP and LRAP (``precision_recall_curve``)
     - averaged for nDCG (``functional/retrieval/ndcg.py``); ``torch.topk`` / ``argsort``
       elsewhere, taken here as input order
   * - negative relevance
     - judged but unjudged-in-pool: never relevant, gain 0 (``form_res_rels.c``)
     - as pytrec_eval; ``Judged`` counts it as judged
     - below ``rel``: dropped (``metrics/common.py: clean_qrels``)
     - ``ndcg_score`` raises; ``dcg_score`` uses it as a negative gain
     - nDCG uses it as a negative gain; binary measures take ``relevance >= rel``
   * - relevant documents not retrieved
     - count (recall, AP and the ideal DCG use every judged document)
     - count
     - count
     - invisible: only the scored items exist
     - invisible: only the scored items exist
   * - query without relevant documents
     - 0, counted in the mean
     - 0, counted
     - 0, counted
     - nDCG and AP 0 (scikit-learn issue 29521), LRAP 1
     - 0 (``empty_target_action="neg"``)
   * - query judged but not in the run
     - skipped (trec_eval without ``-c``)
     - 0, counted (``providers/base.py: Evaluator.iter_calc``)
     - error (``meta/evaluate.py: check_keys``)
     - skipped (no row)
     - skipped (no row)
   * - query in the run but not judged
     - skipped
     - skipped
     - error
     - scored with every label 0
     - scored with every label 0
   * - P@k, k longer than the list
     - divide by k
     - divide by k; ``Judged@k`` by the list length
     - divide by k
     - (no P@k)
     - divide by k (``adaptive_k=False``)
   * - gain, discount
     - relevance, :math:`\log_2(i+1)`
     - same
     - relevance or :math:`2^r-1` (``ndcg_burges``), :math:`\log_2(i+1)`
     - relevance, :math:`\log_2(i+1)`
     - relevance, :math:`\log_2(i+1)`
   * - averaging
     - mean over queries
     - mean
     - mean
     - mean over rows
     - mean over queries (``RetrievalMetric``); the functional call on 2-D input pools all
       rows into one list (torchmetrics issue 3216): ``profile("torchmetrics", averaging="pooled")``

Versions: the first column is trec_eval 9.0.8 (profile ``trec_eval_9``). The profile
``trec_eval`` is trec_eval 10.0, which differs from it in two rows: it compares scores in
double precision, and it stops (exit status 4) on a judged query the run lacks unless ``-c`` is
given (``profile("trec_eval", complete=True)``). pytrec_eval-terrier 0.5 and ir_measures 0.4.3
run the 9.x code. Up to rankbook 0.2.0, ``"trec_eval"`` named the 9.x
behaviour: pass ``"trec_eval_9"`` to keep it. ranx's ``make_comparable=True`` is
``profile("ranx", make_comparable=True)``. Every profile scores an explicit order (a dict of
lists, or ``order="rank"``) as given, without its tie rule (:func:`evaluate_run`).

One evaluator object scoring several runs is a choice too (the last row of the table): the
original pytrec_eval 0.5 drops measures cut at several depths from its second ``evaluate`` on,
or returns wrong values {cite}`pytrec_eval_issue22,pytrec_eval_issue57`, fixed only in
pytrec-eval-terrier, the version the ``pytrec_eval`` profile reproduces; :func:`evaluate_run`
holds no state between calls.

torchmetrics needs torch, which rankbook does not install: its profile was derived from the
source of torchmetrics 1.9.0 and is tested against the examples of its own docstrings, not
against the running library. Other quirks it fixes: scores are cast to float32, documents with
a score of 0 or less never count as relevant in AP, RR, P and R (``torch.where(preds > 0, ...)``),
and its AP@k divides by the relevant documents found in the top k.

Examples
--------
>>> qrels = {"1": {"a": 0, "b": 1, "c": 0}}
>>> evaluate_run(qrels, {"1": {"b": 1.0, "a": 1.0}}, ["nDCG"]).aggregate["nDCG"]
1.0
>>> evaluate_run(qrels, {"1": {"b": 1.0, "c": 1.0}}, ["nDCG"]).aggregate["nDCG"].round(4)
0.6309
"""

from __future__ import annotations

import dataclasses
import itertools
import math
import re
import warnings
from collections.abc import Mapping
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np
import pandas as pd

from rankbook._validation import check_choice, check_flag, check_no_nul
from rankbook import trec_format
from rankbook import trec_measures as _tm

__all__ = [
    "Convention",
    "CONVENTIONS",
    "TIE_RULES",
    "MEASURE_FAMILIES",
    "RunEvaluation",
    "evaluate_run",
    "profile",
    "parse_measure",
    "conventions_table",
    "compare_conventions",
    "VARIANTS",
    "PEER_OPTIONS",
    "ORDERS",
    "read_qrels",
    "read_run",
    "relstrings",
    "TREC_EVAL_NAMES",
    "AGGREGATION",
]

read_qrels = trec_format.read_qrels
read_run = trec_format.read_run

#: How documents with equal scores are put in order. ``docno_desc``: by document id, descending
#: (trec_eval); ``docno_asc``: ascending; ``input_order``: as given (a stable sort);
#: ``numba_quicksort``: the order numba's ``np.argsort`` of the negated scores leaves them in
#: (ranx's Qrels/Run objects: input order up to 15 documents); ``numba_quicksort_reversed``:
#: numba's ascending ``np.argsort`` of the scores, reversed (ranx given plain dicts: reverse
#: input order up to 15 documents); ``average``:
#: no order, the gain of a tied group is averaged over its positions (McSherry and Najork);
#: ``threshold``: no order, a tied group is one threshold of the precision-recall curve.
#: ``numba_quicksort_twice``: that quicksort applied again to its own output (ranx's
#: ``make_comparable=True``, which sorts the Run a second time).
TIE_RULES = ("docno_desc", "docno_asc", "input_order", "numba_quicksort", "numba_quicksort_reversed",
             "numba_quicksort_twice", "average", "threshold")

#: Measure families and the parameters each accepts (besides the cut-off ``@k``): ir_measures'
#: names where ir_measures has the measure, trec_eval's otherwise (:func:`parse_measure` also
#: takes trec_eval's names of every one, :data:`TREC_EVAL_NAMES`).
MEASURE_FAMILIES = {
    "nDCG": ("dcg", "rel"),
    "DCG": ("dcg", "rel"),
    "AP": ("rel",),
    "RR": ("rel",),
    "P": ("rel",),
    "R": ("rel",),
    "Rprec": ("rel",),
    "Success": ("rel",),
    "Judged": (),
    "LRAP": ("rel",),
    "ERR": (),
    "Bpref": ("rel",),
    "infAP": ("rel",),
    "gm_map": ("rel",),
    "gm_bpref": ("rel",),
    "IPrec": ("rel", "recall"),
    "11pt_avg": ("rel",),
    "Rprec_mult": ("rel",),
    "NumRet": (),
    "NumRel": ("rel",),
    "NumRelRet": ("rel",),
    "NumQ": (),
    "num_nonrel_judged_ret": ("rel",),
    "utility": ("rel",),
    "SetP": ("rel",),
    "SetR": ("rel",),
    "SetF": ("rel", "beta"),
    "SetAP": ("rel",),
    "SetRelP": ("rel",),
    "relative_P": ("rel",),
    "binG": ("rel",),
    "G": (),
    "ndcg_rel": (),
    "Rndcg": ("rel",),
    "rbp": ("p",),
    "rbp_resid": ("p",),
    "unj": (),
}
#: How each family takes ``@``: a whole cut-off (``required``, ``optional``, ``none``) or a
#: level between 0 and 1 (``level``: the recall of ``IPrec@0.1``) or above 0 (``multiple``:
#: ``Rprec_mult@0.2``, a multiple of R).
_CUTOFF = {"nDCG": "optional", "DCG": "optional", "AP": "optional", "RR": "optional",
           "P": "required", "R": "required", "Rprec": "none", "Success": "required",
           "Judged": "optional", "LRAP": "none", "ERR": "optional", "IPrec": "level",
           "Rprec_mult": "multiple", "relative_P": "required", "unj": "required"}
#: How a family's per-query values make the value over queries: the mean (default), the sum
#: (trec_eval's counts; ir_measures' ``SumAgg``) or the geometric mean with trec_eval's floor
#: of 0.00001 (``meas_avg.c: te_calc_avg_meas_s_gm``).
AGGREGATION = {"NumRet": "sum", "NumRel": "sum", "NumRelRet": "sum", "NumQ": "sum",
               "num_nonrel_judged_ret": "sum", "gm_map": "gmean", "gm_bpref": "gmean"}
#: The smallest value a geometric mean takes of a query (``trec_eval.h: MIN_GEO_MEAN``).
MIN_GEO_MEAN = 0.00001

#: trec_eval's measure names, as trec_eval prints them, and the family each is: a name with
#: ``{k}`` takes a whole cut-off, one with ``{x}`` a level or multiple (printed with two
#: decimals, ``iprec_at_recall_0.10``). ``relstring`` and ``runid`` are text, not numbers:
#: :func:`relstrings` and ``rankbook eval`` give them.
TREC_EVAL_NAMES = {
    "runid": None, "num_q": "NumQ", "num_ret": "NumRet", "num_rel": "NumRel",
    "num_rel_ret": "NumRelRet", "map": "AP", "gm_map": "gm_map", "Rprec": "Rprec",
    "bpref": "Bpref", "recip_rank": "RR", "iprec_at_recall_{x}": "IPrec", "P_{k}": "P",
    "relstring": None, "recall_{k}": "R", "infAP": "infAP", "gm_bpref": "gm_bpref",
    "Rprec_mult_{x}": "Rprec_mult", "utility": "utility", "11pt_avg": "11pt_avg",
    "binG": "binG", "G": "G", "ndcg": "nDCG", "ndcg_rel": "ndcg_rel", "Rndcg": "Rndcg",
    "ndcg_cut_{k}": "nDCG", "map_cut_{k}": "AP", "relative_P_{k}": "relative_P",
    "success_{k}": "Success", "set_P": "SetP", "set_relative_P": "SetRelP",
    "set_recall": "SetR", "set_map": "SetAP", "set_F": "SetF",
    "num_nonrel_judged_ret": "num_nonrel_judged_ret", "rbp": "rbp", "rbp_resid": "rbp_resid",
    "unj_{k}": "unj",
}
#: Families that take trec_eval's relevance level (``-l``, :attr:`Convention.relevance_level`)
#: when the name sets no ``rel``; the others count every positive level as gain (nDCG, G, ...).
_LEVEL_FAMILIES = frozenset(f for f, params in MEASURE_FAMILIES.items() if "rel" in params
                            and f not in ("nDCG", "DCG"))
#: ir_measures' other spellings of a family.
_IR_ALIASES = {"BPref": "Bpref"}


@dataclass(frozen=True)
class Convention:
    """The choices one evaluation tool makes, besides the formula of each measure.

    Build one from a profile with :func:`profile` (``profile("ranx", ties="docno_desc")``) to
    ask what-if questions; :data:`CONVENTIONS` holds the seven profiles. Every field is a choice
    the table of the module documentation describes.

    Attributes
    ----------
    name : str
    measures : tuple of str
        Measure forms the tool offers, as ``family`` or ``family@k``.
    ties : str
        Default rule for tied scores, one of :data:`TIE_RULES`.
    ties_by_measure : tuple of (str, str)
        Measure forms (``"RR@k"``, ``"nDCG"``, ...) ordered by another rule.
    judgments : {"all", "retrieved"}
        ``"all"``: every judged document counts (recall, AP divisor, ideal DCG);
        ``"retrieved"``: only scored documents exist (scikit-learn, torchmetrics).
    negative_labels : {"unjudged", "below_rel", "gain"}
        What a negative relevance is: never relevant and no gain (``"unjudged"``,
        ``"below_rel"``), or a (negative) gain in (n)DCG (``"gain"``).
    whole_labels : bool
        Relevance must be a whole number (trec_eval reads integers, pytrec_eval takes int).
    nonnegative_ndcg_labels : bool
        nDCG refuses negative relevance (scikit-learn's ``ndcg_score``).
    min_documents_dcg : int
        Fewest scored documents a query needs for (n)DCG (scikit-learn: 2).
    qrels_only : {"skip", "zero", "error"}
        A query judged but absent from the run.
    run_only : {"skip", "unjudged", "error"}
        A query in the run without judgements; ``"unjudged"`` scores it with all labels 0.
    judged_cut_divisor : {"k", "list"}
        What ``Judged@k`` divides by when the list is shorter than k.
    ap_divisor : {"relevant", "relevant_in_cut"}
        AP divides by all relevant documents, or by those in the top k (torchmetrics).
    nonpositive_scores_relevant : bool
        False: a document scored 0 or less never counts as relevant in AP, RR, P and R
        (torchmetrics).
    score_dtype : {"float64", "float32"}
        Precision in which scores are compared: trec_eval keeps them as C ``float``, so scores
        closer than single precision resolves are tied there.
    score_dtype_by_measure : tuple of (str, str)
        Measure forms compared in another precision (ir_measures' Python providers).
    no_relevant_lrap : float
        LRAP of a query whose documents are all relevant or all not (scikit-learn: 1).
    averaging : {"per_query", "pooled"}
        Mean over queries, or one list pooling every query's documents.
    exp_dcg : {"none", "any", "gdeval"}
        Whether (n)DCG takes ``dcg='exp-log2'`` (gain :math:`2^r-1`): ``"none"`` refuses it,
        ``"any"`` takes it for every (n)DCG form (ranx's ``ndcg_burges``), ``"gdeval"`` takes it
        for ``nDCG@k`` only, computed as ir_measures 0.4.3 serves it (its gdeval provider:
        ties by document id descending in double precision, relevance above 4 refused, the
        value printed to 5 decimals).
    relevance_level : int
        The level a document needs to count as relevant when a measure's name sets no ``rel``
        (trec_eval's ``-l``, default 1). trec_eval's nDCG, G, ndcg_rel and rbp take every
        positive level as gain whatever it is.
    max_documents : int or None
        Only the first this many documents of each query count, after ordering (trec_eval's
        ``-M``); None: all.
    judged_only : bool
        Documents without a judgement of 0 or more are removed from each ranking before any
        measure (trec_eval's ``-J``), after ``max_documents``.
    recall_cutoff : str
        How ``IPrec`` and ``11pt_avg`` turn a recall level into a number of relevant documents,
        one of :data:`rankbook.trec_measures.RECALL_CUTOFF_RULES` (trec_eval 9: ``"plus_0.9"``;
        10.0: ``"lround"``).
    peer : str
        The tool and version the profile was read from.
    sources : tuple of (str, str)
        For each setting, where the peer makes that choice (file and function).
    """

    name: str
    measures: tuple
    ties: str = "docno_desc"
    ties_by_measure: tuple = ()
    judgments: str = "all"
    negative_labels: str = "unjudged"
    whole_labels: bool = True
    nonnegative_ndcg_labels: bool = False
    min_documents_dcg: int = 1
    qrels_only: str = "skip"
    run_only: str = "skip"
    judged_cut_divisor: str = "k"
    ap_divisor: str = "relevant"
    nonpositive_scores_relevant: bool = True
    score_dtype: str = "float64"
    score_dtype_by_measure: tuple = ()
    no_relevant_lrap: float = 1.0
    averaging: str = "per_query"
    exp_dcg: str = "none"
    relevance_level: int = 1
    max_documents: int | None = None
    judged_only: bool = False
    recall_cutoff: str = "plus_0.9"
    peer: str = ""
    sources: tuple = ()

    def __post_init__(self):
        checks = {
            "ties": TIE_RULES, "judgments": ("all", "retrieved"),
            "negative_labels": ("unjudged", "below_rel", "gain"),
            "qrels_only": ("skip", "zero", "error"), "run_only": ("skip", "unjudged", "error"),
            "judged_cut_divisor": ("k", "list"), "ap_divisor": ("relevant", "relevant_in_cut"),
            "score_dtype": ("float64", "float32"), "averaging": ("per_query", "pooled"),
            "exp_dcg": ("none", "any", "gdeval"),
            "recall_cutoff": _tm.RECALL_CUTOFF_RULES,
        }
        for field, choices in checks.items():
            check_choice(getattr(self, field), choices, field)
        if (isinstance(self.relevance_level, bool)
                or not isinstance(self.relevance_level, (int, np.integer)) or self.relevance_level < 1):
            raise ValueError(f"relevance_level={self.relevance_level!r} must be a whole number "
                             ">= 1 (trec_eval's -l), e.g. 1 or 2")
        if self.max_documents is not None and (
                isinstance(self.max_documents, bool)
                or not isinstance(self.max_documents, (int, np.integer)) or self.max_documents < 1):
            raise ValueError(f"max_documents={self.max_documents!r} must be None or a whole "
                             "number >= 1 (trec_eval's -M)")
        if not isinstance(self.judged_only, bool):
            raise ValueError(f"judged_only={self.judged_only!r} must be True or False (trec_eval's -J)")
        for form, dtype in self.score_dtype_by_measure:
            check_choice(dtype, ("float64", "float32"), f"score_dtype_by_measure[{form!r}]")
        for form, rule in self.ties_by_measure:
            check_choice(rule, TIE_RULES, f"ties_by_measure[{form!r}]")
        if self.averaging == "pooled" and self.judgments != "retrieved":
            raise ValueError(
                "averaging='pooled' pools the scored documents of every query into one list, "
                "which only makes sense with judgments='retrieved' (scikit-learn, torchmetrics)"
            )

    def score_precision(self, form: str) -> str:
        """The precision scores are compared in for one measure form."""
        for f, dtype in self.score_dtype_by_measure:
            if f == form:
                return dtype
        return self.score_dtype

    def tie_rule(self, form: str) -> str:
        """The tie rule for one measure form (``"RR@k"``, ``"nDCG"``, ...)."""
        for f, rule in self.ties_by_measure:
            if f == form:
                return rule
        return self.ties


_TREC_MEASURES = ("nDCG", "nDCG@k", "AP", "AP@k", "RR", "P@k", "R@k", "Rprec", "Success@k",
                  "Bpref", "infAP", "gm_map", "gm_bpref", "IPrec", "11pt_avg", "Rprec_mult",
                  "NumRet", "NumRel", "NumRelRet", "NumQ", "num_nonrel_judged_ret", "utility",
                  "SetP", "SetR", "SetF", "SetAP", "SetRelP", "relative_P@k", "binG", "G",
                  "ndcg_rel", "Rndcg")
#: trec_eval 10.0's measures: 9.0.8's and rank-biased precision, its residual and the
#: fraction of unjudged documents (m_rbp.c, m_rbp_resid.c, m_unjudged.c).
_TREC10_MEASURES = _TREC_MEASURES + ("rbp", "rbp_resid", "unj@k")

_TREC_SOURCES = (
    ("ties", "form_res_rels.c: comp_sim_docno (score descending, then strcmp of docno, descending); "
             "trec_format.h: scores held as C float, so scores equal in single precision tie"),
    ("negative_labels", "form_res_rels.c: te_form_res_rels (rel < 0: RELVALUE_UNJUDGED, never relevant)"),
    ("qrels_only", "trec_eval.c: main (queries in both qrels and results; -c not given)"),
    ("run_only", "trec_eval.c: main (a query without qrels is not evaluated)"),
    ("no_relevant", "m_map.c, m_ndcg.c: the value stays 0 when num_rel or the ideal DCG is 0"),
    ("k_beyond_list", "m_P.c: te_calc_P (relevant retrieved in the top k divided by k)"),
    ("gain", "m_ndcg.c / m_ndcg_cut.c: gain = relevance level, discount log2(rank + 1)"),
    ("averaging", "meas_avg.c: te_calc_avg_meas_s (sum over queries / num_q)"),
)

_TREC10_SOURCES = (
    ("ties", "form_res_rels.c: comp_sim_docno (score descending, then strcmp of docno, descending); "
             "10.0 keeps scores as C double, so only scores equal in double precision tie"),
    _TREC_SOURCES[1],
    ("qrels_only", "trec_eval.c: main (10.0 stops with exit status 4 on a judged query the run "
                   "lacks, unless -c is given: then it scores 0 and counts)"),
) + _TREC_SOURCES[3:]

CONVENTIONS: dict = {
    "trec_eval": Convention(
        name="trec_eval", measures=_TREC10_MEASURES, score_dtype="float64", qrels_only="error",
        recall_cutoff="lround",
        peer="trec_eval 10.0 (usnistgov/trec_eval, tag v10.0)",
        sources=_TREC10_SOURCES,
    ),
    "trec_eval_9": Convention(
        name="trec_eval_9", measures=_TREC_MEASURES, score_dtype="float32",
        peer="trec_eval 9.0.8 (usnistgov/trec_eval, tag v9.0.8)",
        sources=_TREC_SOURCES,
    ),
    "pytrec_eval": Convention(
        name="pytrec_eval", measures=_TREC_MEASURES, score_dtype="float32",
        peer="pytrec_eval-terrier 0.5 (trec_eval's code behind RelevanceEvaluator.evaluate)",
        sources=_TREC_SOURCES[:2] + (
            ("qrels_only", "pytrec_eval.cpp: RelevanceEvaluator_evaluate (only queries of the run that have qrels)"),
            ("run_only", "pytrec_eval.cpp: RelevanceEvaluator_evaluate (a run query without qrels is left out)"),
        ) + _TREC_SOURCES[4:7] + (("averaging", "none: per-query dicts; users average them (pytrec_eval.compute_aggregated_measure)"),),
    ),
    "ir_measures": Convention(
        name="ir_measures",
        measures=("nDCG", "nDCG@k", "AP", "AP@k", "RR", "RR@k", "P@k", "R@k", "Rprec", "Success@k",
                  "Judged", "Judged@k", "Bpref", "infAP", "IPrec", "NumRet", "NumRel",
                  "NumRelRet", "NumQ", "SetP", "SetR", "SetF", "SetAP", "SetRelP", "ERR",
                  "ERR@k"),
        ties_by_measure=(("RR@k", "docno_asc"), ("Judged", "docno_asc"), ("Judged@k", "docno_asc")),
        score_dtype="float32",
        score_dtype_by_measure=(("RR@k", "float64"), ("Judged", "float64"), ("Judged@k", "float64")),
        qrels_only="zero", judged_cut_divisor="list", exp_dcg="gdeval",
        peer="ir_measures 0.4.3 (default pipeline: pytrec_eval, msmarco, judged and gdeval providers)",
        sources=(
            ("ties", "providers/pytrec_eval_provider.py (trec_eval's order); providers/msmarco_provider.py "
                     "and providers/judged_provider.py: sorted(key=(-score, doc_id)), ascending id"),
            ("negative_labels", "pytrec_eval as trec_eval; judged_provider.py: any qrels entry is judged"),
            ("qrels_only", "providers/base.py: Evaluator.iter_calc yields measure.DEFAULT (0) for qrels "
                           "queries the run lacks"),
            ("run_only", "providers/base.py: Evaluator (queries come from the qrels)"),
            ("no_relevant", "pytrec_eval: 0; msmarco_provider: query without relevant -> DEFAULT 0"),
            ("k_beyond_list", "pytrec_eval P_k divides by k; judged_provider.py divides by the list length"),
            ("gain", "measures/ndcg.py: dcg='log2' served by pytrec_eval (relevance gain); "
                     "nDCG(dcg='exp-log2')@k by providers/gdeval_provider.py (bin/gdeval.pl: "
                     "gain 2**rel - 1, ties by docno descending, printed to 5 decimals)"),
            ("averaging", "measures/base.py: MeanAgg"),
        ),
    ),
    "ranx": Convention(
        name="ranx",
        measures=("nDCG", "nDCG@k", "DCG", "DCG@k", "AP", "AP@k", "RR", "RR@k", "P@k", "R@k", "Rprec",
                  "Success@k"),
        ties="numba_quicksort", negative_labels="below_rel", qrels_only="error", run_only="error",
        exp_dcg="any",
        peer="ranx 0.3.21 (numba kernels; Qrels/Run or dicts)",
        sources=(
            ("ties", "data_structures/common.py: sort_dict_by_value -> np.argsort(-scores) in numba "
                     "(quicksort; insertion sort below 16 items, so input order there)"),
            ("negative_labels", "metrics/common.py: clean_qrels keeps relevance >= rel_lvl"),
            ("qrels_only", "meta/evaluate.py: check_keys asserts equal query ids (make_comparable=False)"),
            ("run_only", "meta/evaluate.py: check_keys"),
            ("no_relevant", "metrics/*.py: return 0.0 when no qrels pass rel_lvl"),
            ("k_beyond_list", "metrics/precision.py: _precision divides by k"),
            ("gain", "metrics/ndcg.py: _dcg (jarvelin: rel / log2(i+1); burges: 2**rel - 1)"),
            ("averaging", "meta/evaluate.py: np.mean(scores)"),
        ),
    ),
    "sklearn": Convention(
        name="sklearn", measures=("nDCG", "nDCG@k", "DCG", "DCG@k", "AP", "LRAP"),
        ties="average", ties_by_measure=(("AP", "threshold"), ("LRAP", "threshold")),
        judgments="retrieved", negative_labels="gain", whole_labels=False,
        nonnegative_ndcg_labels=True, min_documents_dcg=2, run_only="unjudged",
        peer="scikit-learn 1.9 (sklearn/metrics/_ranking.py)",
        sources=(
            ("ties", "_ranking.py: _dcg_sample_scores(ignore_ties=False) -> _tie_average_dcg; "
                     "average_precision_score -> precision_recall_curve (one threshold per distinct score)"),
            ("negative_labels", "_ranking.py: ndcg_score raises on y_true < 0; dcg_score accepts it"),
            ("qrels_only", "no query ids: a row exists only for what was scored"),
            ("run_only", "a row with y_true all 0"),
            ("no_relevant", "_ranking.py: _ndcg_sample_scores sets all-irrelevant rows to 0 (scikit-learn issue 29521); "
                            "average_precision_score returns 0 with a warning; "
                            "label_ranking_average_precision_score gives 1"),
            ("k_beyond_list", "ndcg_score(k) larger than the row: the whole row"),
            ("gain", "_ranking.py: _dcg_sample_scores (y_true as gain, log_base=2)"),
            ("averaging", "_ranking.py: ndcg_score -> np.average over rows"),
        ),
    ),
    "torchmetrics": Convention(
        name="torchmetrics",
        measures=("nDCG", "nDCG@k", "AP", "AP@k", "RR", "RR@k", "P@k", "R@k", "Rprec", "Success@k"),
        ties="input_order", ties_by_measure=(("nDCG", "average"), ("nDCG@k", "average")),
        judgments="retrieved", negative_labels="gain", whole_labels=False, run_only="unjudged",
        ap_divisor="relevant_in_cut", nonpositive_scores_relevant=False, score_dtype="float32",
        peer="torchmetrics 1.9.0 (read from its source; torch is not installed)",
        sources=(
            ("ties", "functional/retrieval/ndcg.py: _tie_average_dcg; average_precision.py, "
                     "reciprocal_rank.py: preds.topk(sorted=True); precision.py, recall.py: argsort"),
            ("negative_labels", "utilities/checks.py: binary measures need targets in {0, 1}; nDCG "
                                "(allow_non_binary_target) takes any"),
            ("qrels_only", "retrieval/base.py: RetrievalMetric.compute groups rows by indexes"),
            ("run_only", "retrieval/base.py: empty_target_action='neg' -> 0"),
            ("no_relevant", "retrieval/base.py: empty_target_action='neg' -> 0"),
            ("k_beyond_list", "functional/retrieval/precision.py: relevant / top_k (adaptive_k=False)"),
            ("gain", "functional/retrieval/ndcg.py: _dcg_sample_scores (target / log2(i + 2))"),
            ("averaging", "retrieval/base.py: _retrieval_aggregate 'mean'; the functional API "
                          "flattens 2-D input (torchmetrics issue 3216)"),
        ),
    ),
}


#: The peers' own options that change their scores, by profile: option name -> (what the peer
#: calls it, the fields it sets). ``profile("ranx", make_comparable=True)`` is
#: ``ranx.evaluate(..., make_comparable=True)``; ``profile("trec_eval", complete=True)`` is
#: ``trec_eval -c``.
PEER_OPTIONS = {
    "trec_eval": {"complete": ("trec_eval -c", {"qrels_only": "zero"})},
    "trec_eval_9": {"complete": ("trec_eval -c", {"qrels_only": "zero"})},
    "ranx": {"make_comparable": ("ranx.evaluate(make_comparable=True)",
                                 {"qrels_only": "zero", "run_only": "skip",
                                  "ties": "numba_quicksort_twice"})},
}


def profile(name: str | Convention = "trec_eval", **changes) -> Convention:
    """One of the seven profiles, optionally with some choices changed.

    Parameters
    ----------
    name : str or Convention
        ``"trec_eval"`` (trec_eval 10.0: scores compared in double precision, a judged query
        missing from the run refused as trec_eval 10.0 stops without ``-c``),
        ``"trec_eval_9"`` (trec_eval 9.0.8: scores compared as C ``float``, such a query
        skipped), ``"pytrec_eval"``, ``"ir_measures"``, ``"ranx"``, ``"sklearn"`` or
        ``"torchmetrics"``.
    **changes
        Fields of :class:`Convention` to replace, e.g. ``ties="input_order"``, or a peer's own
        option of :data:`PEER_OPTIONS` set to True: ``complete=True`` (``trec_eval -c``: a
        judged query the run lacks scores 0) or ``make_comparable=True`` (ranx: such a query
        scores 0, a query without judgements is left out, and tied documents come in the
        order ranx's second sort of the Run leaves them: ``ties="numba_quicksort_twice"``).

    Returns
    -------
    Convention

    Examples
    --------
    >>> profile("torchmetrics", averaging="pooled").averaging
    'pooled'
    >>> profile("trec_eval").score_dtype, profile("trec_eval_9").score_dtype
    ('float64', 'float32')
    >>> profile("ranx", make_comparable=True).run_only, profile("ranx", make_comparable=True).ties
    ('skip', 'numba_quicksort_twice')
    >>> profile("spss")
    Traceback (most recent call last):
    ...
    ValueError: convention 'spss' is not known; choose one of ['trec_eval', 'trec_eval_9', 'pytrec_eval', 'ir_measures', 'ranx', 'sklearn', 'torchmetrics'] or pass a Convention
    """
    if isinstance(name, Convention):
        base = name
    elif isinstance(name, str) and name in CONVENTIONS:
        base = CONVENTIONS[name]
    else:
        raise ValueError(
            f"convention {name!r} is not known; choose one of {list(CONVENTIONS)} or pass a Convention"
        )
    if not changes:
        return base
    options = PEER_OPTIONS.get(base.name, {})
    for opt in [k for k in changes if k in {o for v in PEER_OPTIONS.values() for o in v}]:
        value = changes.pop(opt)
        if opt not in options:
            offered = ", ".join(options) or "none"
            raise ValueError(f"option {opt!r} is not an option of the {base.name} profile; its "
                             f"options are: {offered}")
        check_flag(value, f"option {opt}")
        if value:
            for field, v in options[opt][1].items():
                changes.setdefault(field, v)
    if not changes:
        return base
    fields = {f.name for f in dataclasses.fields(Convention)}
    unknown = sorted(set(changes) - fields)
    if unknown:
        raise ValueError(f"Convention has no field {unknown}; the fields are {sorted(fields)}")
    return dataclasses.replace(base, **changes)


# --------------------------------------------------------------------------------------------
# measure names


class Measure(NamedTuple):
    """A parsed measure name: the text as given, its family, cut-off, ``rel``, gain and level.

    ``x`` is the family's number that is not a cut-off: the recall level of ``IPrec``, the
    multiple of R of ``Rprec_mult``, the persistence ``p`` of ``rbp`` (default 0.9) or the
    ``beta`` of ``SetF`` (default 1).
    """

    text: str
    family: str
    k: int | None
    rel: int
    exp_gain: bool
    x: float | None = None

    @property
    def form(self) -> str:
        return self.family + ("@k" if self.k is not None else "")


_MEASURE_RE = re.compile(r"^\s*(?P<family>[A-Za-z][A-Za-z0-9_]*)\s*(?:\((?P<params>[^()]*)\))?"
                         r"\s*(?:@\s*(?P<k>[^\s]+))?\s*$")
_TREC_NAME_RE = {
    name: re.compile("^" + re.escape(name).replace(r"\{k\}", "(?P<k>[0-9]+)")
                     .replace(r"\{x\}", r"(?P<x>[0-9]*\.?[0-9]+)") + "$")
    for name in TREC_EVAL_NAMES
}


#: Names other tools use for a measure family (lower case), for the "did you mean" of an
#: unknown measure.
_MEASURE_ALIASES = {"map": "AP", "mrr": "RR", "recip_rank": "RR", "ndcg_cut": "nDCG",
                    "precision": "P", "recall": "R", "r-prec": "Rprec", "r_prec": "Rprec",
                    "success": "Success", "hits": "Success", "bpref": "Bpref"}


def _measure_guess(text: str) -> str:
    """'; did you mean ...?' for a measure written in another case or another tool's name."""
    head = re.match(r"[^@(]*", text).group(0)
    lower = head.lower()
    family = ({f.lower(): f for f in MEASURE_FAMILIES}.get(lower) or _MEASURE_ALIASES.get(lower))
    return f" (did you mean {family + text[len(head):]!r}?)" if family else ""


def _examples(conv: Convention | None = None) -> list[str]:
    """Written examples of every measure form (one profile's, or every profile's), in both
    spellings, for the nearest name of a refusal."""
    out = []
    convs = [conv] if conv is not None else list(CONVENTIONS.values())
    forms = {f for c in convs for f in c.measures}
    for name, fam in TREC_EVAL_NAMES.items():
        if fam is None:
            continue
        form = fam + ("@k" if "{k}" in name and fam in ("AP", "nDCG", "relative_P", "unj", "P", "R", "Success")
                      and _CUTOFF.get(fam) != "none" else "")
        if form in forms or fam in forms:
            out.append(name.replace("{k}", "10").replace("{x}", "0.20" if "mult" in name else "0.10"))
    for form in sorted(forms):
        fam = form.removesuffix("@k")
        kind = _CUTOFF.get(fam, "none")
        if form.endswith("@k"):
            out.append(fam + "@10")
        elif kind == "level":
            out.append(fam + "@0.1")
        elif kind == "multiple":
            out.append(fam + "@0.2")
        else:
            out.append(fam)
    return list(dict.fromkeys(out))


#: Families close in meaning, for the nearest measure of a refusal.
_RELATED = {"Judged": ("unj",), "unj": ("Judged",), "ERR": ("nDCG", "RR"), "RR": ("Success",),
            "SetRelP": ("SetP",), "gm_map": ("AP",), "gm_bpref": ("Bpref",), "infAP": ("AP",),
            "IPrec": ("11pt_avg", "P"), "11pt_avg": ("IPrec",), "rbp": ("nDCG",),
            "rbp_resid": ("unj",), "DCG": ("nDCG",), "LRAP": ("AP",), "P": ("SetP", "AP"),
            "R": ("SetR", "AP"), "Success": ("RR",), "Rprec": ("Rprec_mult", "AP")}


def _family_of(name: str) -> str:
    try:
        trec = _parse_trec_name(name, CONVENTIONS["trec_eval"])
    except ValueError:
        trec = None
    return trec.family if trec is not None else re.sub(r"[@(].*$", "", name)


def _nearest(text: str, conv: Convention | None = None, family: str | None = None) -> str | None:
    """The supported name (of one profile, or of any) closest to ``text``: one of the same
    family first, then of a related family, else the closest spelling."""
    import difflib

    names = _examples(conv)
    families = [family, *_RELATED.get(family, ())] if family is not None else []
    cut = re.search(r"@(\d+)$", text)
    for fam in families:
        same = [n for n in names if _family_of(n) == fam]
        if same:
            close = difflib.get_close_matches(text, same, n=1, cutoff=0.0)
            return _with_cutoff(close[0] if close else same[0], cut)
    close = difflib.get_close_matches(text, names, n=1, cutoff=0.5)
    if close:
        return _with_cutoff(close[0], cut)
    close = difflib.get_close_matches(text.lower(), [n.lower() for n in names], n=1, cutoff=0.3)
    return _with_cutoff(next((n for n in names if n.lower() == close[0]), None), cut) if close \
        else None


def _with_cutoff(name: str | None, cut) -> str | None:
    """``name`` with the cutoff the user asked for: ERR@20 suggests nDCG@20, not nDCG@10."""
    if name is None or cut is None:
        return name
    return re.sub(r"@\d+$", "@" + cut.group(1), name)


def _offered(conv: Convention) -> str:
    """The profile's measure forms as a refusal lists them: a family that needs a level is
    written with it (``IPrec@level``, ``Rprec_mult@multiple``), as it must be named."""
    kind = {"level": "@level", "multiple": "@multiple"}
    return ", ".join(f + kind.get(_CUTOFF.get(f, "none"), "") for f in conv.measures)


def _level(text: str, raw: str, what: str, low_open: bool = False) -> float:
    try:
        value = float(raw)
    except ValueError:
        value = float("nan")
    if not (math.isfinite(value) and (value > 0 if low_open else value >= 0)
            and (what != "recall level" or value <= 1)):
        bound = "above 0" if low_open else "between 0 and 1"
        raise ValueError(f"measure {text!r}: the {what} after @ must be a number {bound}, got {raw!r}")
    return value


def _parse_trec_name(text: str, conv: Convention) -> Measure | None:
    """A trec_eval measure name (``map``, ``P_10``, ``iprec_at_recall_0.10``, ``set_F``), or
    None when ``text`` is not one."""
    for name, pattern in _TREC_NAME_RE.items():
        m = pattern.match(text)
        if not m:
            continue
        family = TREC_EVAL_NAMES[name]
        if family is None:
            raise ValueError(
                f"measure {text!r} is text, not a number (trec_eval prints it as written: "
                + ("the run tag" if name == "runid" else "the relevance codes of the first 10 "
                   "documents, per query") + "); rankbook eval prints it, and "
                + ("rankbook.trec_format.read_run gives the tag" if name == "runid"
                   else "rankbook.conventions.relstrings gives it") + ", not evaluate_run")
        k = int(m.group("k")) if "k" in m.groupdict() else None
        if k is not None and k < 1:
            raise ValueError(f"measure {text!r}: the cut-off must be a whole number >= 1")
        x = None
        if "x" in m.groupdict():
            x = _level(text, m.group("x"), "multiple of R" if family == "Rprec_mult"
                       else "recall level", low_open=family == "Rprec_mult")
        elif family == "rbp" or family == "rbp_resid":
            x = 0.9
        elif family == "SetF":
            x = 1.0
        rel = conv.relevance_level if family in _LEVEL_FAMILIES else 1
        return Measure(text, family, k, rel, False, x)
    return None


def parse_measure(text: str, convention: str | Convention = "trec_eval") -> Measure:
    """Parse a measure name and check the profile offers it: ir_measures' names
    (``"P(rel=2)@5"``, ``"nDCG@10"``, ``"IPrec@0.1"``, ``"SetF(beta=2)"``) or trec_eval's
    (``"map"``, ``"P_10"``, ``"ndcg_cut_10"``, ``"iprec_at_recall_0.10"``, ``"set_F"``, every
    name of :data:`TREC_EVAL_NAMES`). A name sets ``rel`` (the level a relevant document needs)
    or takes the profile's :attr:`~Convention.relevance_level`.

    Parameters
    ----------
    text : str
        The measure's name, as ir_measures writes it.
    convention : str or Convention
        The profile that must offer it.

    Returns
    -------
    Measure

    Examples
    --------
    >>> parse_measure("P(rel=2)@5")
    Measure(text='P(rel=2)@5', family='P', k=5, rel=2, exp_gain=False, x=None)
    >>> parse_measure("iprec_at_recall_0.10")
    Measure(text='iprec_at_recall_0.10', family='IPrec', k=None, rel=1, exp_gain=False, x=0.1)
    >>> parse_measure("RR@10")  # doctest: +ELLIPSIS
    Traceback (most recent call last):
    ...
    ValueError: measure 'RR@10' is not supported by the trec_eval profile (RR@k: ir_measures, ranx, torchmetrics); the nearest it offers is 'RR'; it offers nDCG, ...
    >>> parse_measure("alpha_nDCG@10", "ir_measures")
    Traceback (most recent call last):
    ...
    ValueError: measure 'alpha_nDCG@10' is not supported by rankbook (no profile computes it); the nearest supported measure is 'nDCG@10'
    """
    conv = profile(convention)
    if not isinstance(text, str):
        raise ValueError(f"measure {text!r} must be a string such as 'nDCG@10' or 'map'")
    if "," in text and not re.search(r"\([^()]*,[^()]*\)", text):
        parts = [t.strip() for t in text.split(",")]
        raise ValueError(f"measure {text!r} holds {len(parts)} names separated by commas; pass "
                         f"a list, one name per item: {parts!r}")
    trec = _parse_trec_name(text.strip(), conv)
    m = None if trec is not None else _MEASURE_RE.match(text)
    family = None if m is None else _IR_ALIASES.get(m.group("family"), m.group("family"))
    if trec is None and (not m or family not in MEASURE_FAMILIES):
        guess = _measure_guess(text)
        if guess:
            raise ValueError(
                f"measure {text!r} is not known{guess}; write it as ir_measures does (nDCG@10, "
                "P(rel=2)@5, nDCG(dcg='exp-log2')@10) or as trec_eval does (ndcg_cut_10, P_5, map)")
        near = _nearest(text)
        raise ValueError(
            f"measure {text!r} is not supported by rankbook (no profile computes it); "
            + (f"the nearest supported measure is {near!r}" if near else
               "name a measure as ir_measures does (nDCG@10, AP, P@5) or as trec_eval does "
               "(ndcg_cut_10, map, P_5)"))
    if trec is not None:
        out = trec
    else:
        out = _parse_ir_name(text, family, m, conv)
    if out.form not in conv.measures:
        others = [n for n, c in CONVENTIONS.items() if out.form in c.measures]
        where = f" ({out.form}: {', '.join(others)})" if others else ""
        near = _nearest(text, conv, out.family)
        raise ValueError(
            f"measure {text!r} is not supported by the {conv.name} profile{where}; "
            + (f"the nearest it offers is {near!r}; " if near else "")
            + f"it offers {_offered(conv)}")
    if out.family in ("nDCG", "DCG") and conv.exp_dcg != "any" and out.rel != 1:
        raise ValueError(
            f"measure {text!r}: the {conv.name} profile computes {out.family} with every positive "
            "level counted; rel is ranx's option"
        )
    if out.exp_gain and conv.exp_dcg == "none":
        raise ValueError(
            f"measure {text!r}: the {conv.name} profile computes {out.family} with the relevance as "
            "gain; dcg='exp-log2' is an option of ranx and of ir_measures (nDCG@k)"
        )
    if out.exp_gain and conv.exp_dcg == "gdeval" and (out.family != "nDCG" or out.k is None):
        raise ValueError(
            f"measure {text!r}: the {conv.name} profile takes dcg='exp-log2' for nDCG with a "
            "cut-off only, as ir_measures serves it (gdeval), e.g. nDCG(dcg='exp-log2')@10"
        )
    return out


def _parse_ir_name(text: str, family: str, m, conv: Convention) -> Measure:
    k, x = None, None
    kind = _CUTOFF.get(family, "none")
    raw = m.group("k")
    if raw is not None:
        if kind == "none":
            raise ValueError(f"measure {text!r}: {family} takes no cut-off")
        if kind in ("level", "multiple"):
            x = _level(text, raw, "recall level" if kind == "level" else "multiple of R",
                       low_open=kind == "multiple")
        else:
            if not (raw.isdigit() and raw.isascii() and int(raw) >= 1):
                raise ValueError(f"measure {text!r}: the cut-off after @ must be an integer >= 1, got {raw!r}")
            k = int(raw)
    if kind == "required" and k is None:
        raise ValueError(f"measure {text!r} needs a cut-off, e.g. {family}@10")
    rel = conv.relevance_level if family in _LEVEL_FAMILIES else 1
    exp_gain = False
    if family in ("rbp", "rbp_resid"):
        x = 0.9
    elif family == "SetF":
        x = 1.0
    params = (m.group("params") or "").strip()
    if params:
        for part in params.split(","):
            key, eq, value = (s.strip() for s in part.partition("="))
            if not eq or key not in MEASURE_FAMILIES[family]:
                raise ValueError(
                    f"measure {text!r}: parameter {part.strip()!r} is not valid for {family}; "
                    f"it takes {list(MEASURE_FAMILIES[family]) or 'no parameters'}"
                )
            if key == "rel":
                if not re.fullmatch(r"[0-9]+", value) or int(value) < 1:
                    raise ValueError(f"measure {text!r}: rel must be an integer >= 1, got {value!r}")
                rel = int(value)
            elif key == "dcg":
                v = value.strip("'\"")
                if v not in ("log2", "exp-log2"):
                    raise ValueError(f"measure {text!r}: dcg must be 'log2' or 'exp-log2', got {value!r}")
                exp_gain = v == "exp-log2"
            elif key == "recall":
                x = _level(text, value, "recall level")
            elif key == "p":
                x = _level(text, value, "persistence p", low_open=True)
                if x >= 1:
                    raise ValueError(f"measure {text!r}: p must be below 1, got {value!r}")
            elif key == "beta":
                x = _level(text, value, "beta", low_open=True)
    if kind in ("level", "multiple") and x is None:
        example = f"{family}@0.1" if kind == "level" else f"{family}@0.2"
        raise ValueError(f"measure {text!r} needs a " + ("recall level" if kind == "level" else
                         "multiple of R") + f", e.g. {example}")
    return Measure(text, family, k, rel, exp_gain, x)


# --------------------------------------------------------------------------------------------
# inputs -> codes


class _Coded(NamedTuple):
    """Ids read from a file: codes of their distinct values (text), as the reader built them."""

    codes: np.ndarray
    names: np.ndarray


def _raw_table(obj, value_name: str, what: str):
    """(query ids, doc ids, values) as arrays in input order, without converting ids yet; a
    file's ids stay the codes and names its reader made (no Categorical is built)."""
    if trec_format._is_file(obj):
        obj = trec_format.read_table(obj, "qrels" if what == "qrels" else "run")
    if isinstance(obj, trec_format.TrecTable):
        docs = obj.docs if obj.dnames is None else _Coded(obj.docs, obj.dnames)
        return _Coded(obj.qcodes, obj.qnames), docs, obj.values
    return trec_format._raw_columns(obj, value_name, what)


def _factorize(values):
    """``pd.factorize`` with a fast path for ids that come in contiguous blocks (a run's queries)."""
    values = np.asarray(values)
    if values.size > 1:
        change = values[1:] != values[:-1]
        starts = np.flatnonzero(np.concatenate([[True], change]))
        heads = values[starts]
        if starts.size * 4 <= values.size and pd.Index(heads).is_unique:
            counts = np.diff(np.append(starts, values.size))
            return np.repeat(np.arange(starts.size), counts), heads
    codes, uniques = pd.factorize(values, use_na_sentinel=True)
    if codes.size and codes.min() < 0:
        raise ValueError("an id is missing (None or NaN); every row needs a query id and a document id")
    return codes, np.asarray(uniques)


def _side_codes(x):
    """(codes, distinct values) of one side's ids: a Categorical's own, else factorized."""
    if isinstance(x, _Coded):  # the reader's codes, as it keeps them (int32 where they fit)
        return np.asarray(x.codes), np.asarray(x.names, dtype=object)
    if isinstance(x, pd.Categorical):  # codes as pandas keeps them: as small as int8
        return x.codes, np.asarray(x.categories, dtype=object)
    codes, uniq = pd.factorize(np.asarray(x), use_na_sentinel=True)
    if codes.size and codes.min() < 0:
        raise ValueError("an id is missing (None or NaN); every row needs a query id and a document id")
    return codes, np.asarray(uniq, dtype=object)


class _IntNames:
    """Names of documents whose ids are non-negative integers on both sides: the code is the id."""

    def __init__(self, size):
        self.size = size

    def __len__(self):
        return self.size

    def __getitem__(self, idx):
        arr = np.asarray(idx)
        if arr.ndim == 0:
            return str(int(arr))
        return np.array([str(int(x)) for x in arr.ravel()], dtype=object).reshape(arr.shape)


def _codes(a, b, integer_codes=False):
    """Joint codes of two id arrays, ids compared as strings; returns (codes_a, codes_b, names).

    Each side is factorized on its own (fast for contiguous blocks); only the distinct values
    are converted to text and merged, so 7 and "7" are one id. With ``integer_codes``, ids that
    are non-negative integers on both sides are their own codes (no hashing of the run).
    """
    if isinstance(a, (_Coded, pd.Categorical)) or isinstance(b, (_Coded, pd.Categorical)):
        # ids read from a file: codes of their distinct values, merged on those values only
        what = "document" if integer_codes else "query"
        ca, ua = _side_codes(a)
        cb, ub = _side_codes(b)
        names = np.concatenate([trec_format.id_text(ua, f"the {what} ids of the qrels"),
                                trec_format.id_text(ub, f"the {what} ids of the run")])
        merged, uniq = pd.factorize(names)
        if uniq.size < 2**31:  # int32 codes: half the memory of a run's column
            merged = merged.astype(np.int32)
        return (merged[: ua.size][ca], merged[ua.size:][cb] if cb.size else cb.astype(np.int64),
                np.asarray(uniq, dtype=object))
    a, b = np.asarray(a), np.asarray(b)
    if (integer_codes and a.dtype.kind in "iu" and b.dtype.kind in "iu" and a.size and b.size
            and min(a.min(), b.min()) >= 0 and max(a.max(), b.max()) < 2**40):
        return (a.astype(np.int64, copy=False), b.astype(np.int64, copy=False),
                _IntNames(int(max(a.max(), b.max())) + 1))
    if not integer_codes:  # query ids: each side in contiguous blocks, merged on their few values
        ca, ua = _factorize(a)
        cb, ub = _factorize(b)
        names = np.concatenate([trec_format.id_text(ua.astype(object), "the query ids of the qrels"),
                                trec_format.id_text(ub.astype(object), "the query ids of the run")])
        merged, uniq = pd.factorize(names)
        return merged[ca], merged[ua.size + cb] if cb.size else cb, np.asarray(uniq, dtype=object)
    # document ids: one pass over both sides; text ids need no second pass
    both = np.concatenate([a.astype(object, copy=False), b.astype(object, copy=False)])
    codes, uniq = pd.factorize(both, use_na_sentinel=True)
    if codes.size and codes.min() < 0:
        raise ValueError("an id is missing (None or NaN); every row needs a query id and a document id")
    uniq = np.asarray(uniq, dtype=object)
    if pd.api.types.infer_dtype(uniq, skipna=False) != "string":
        merged, names = pd.factorize(trec_format.id_text(uniq, "the document ids"))
        codes, uniq = merged[codes], np.asarray(names, dtype=object)
    return codes[: a.size], codes[a.size:], uniq


class _Inputs(NamedTuple):
    qq: np.ndarray  # qrels query codes
    qd: np.ndarray  # qrels doc codes
    qv: np.ndarray  # qrels relevance
    rq: np.ndarray  # run query codes
    rd: np.ndarray  # run doc codes
    rv: np.ndarray  # run scores
    qnames: np.ndarray
    dnames: np.ndarray
    explicit: bool = False  # rv holds ranks of an explicit order
    # the join already made (plain dicts or files): the relevance of each run row, NaN where
    # the document is not judged; document codes are then rows (no query holds a document
    # twice: a dict holds a key once, and a file's pairs were found distinct)
    run_rel: np.ndarray | None = None


def _numbers(values, qcodes, dcodes, qnames, dnames, value_name, what):
    return trec_format._as_numbers(
        values, lambda i: (qnames[qcodes[i]], dnames[dcodes[i]]), value_name, what)


#: How a run says which document comes first: ``"score"`` (higher first; ties broken by the
#: profile's rule) or ``"rank"`` (an explicit order: ranks 1, 2, ... or a list, scored as given).
ORDERS = ("score", "rank")


def _is_list(x):
    return isinstance(x, (list, tuple)) or (isinstance(x, np.ndarray) and x.ndim == 1)


def _run_columns(run, order):
    """(query ids, doc ids, values, explicit) of a run: values are scores, or ranks when the run
    is an explicit order (``order="rank"``, or a dict of lists)."""
    _check_order(order)
    if isinstance(run, Mapping) and any(_is_list(v) for v in run.values()):
        bad = next((q for q, v in run.items() if not _is_list(v)), None)
        if bad is not None:
            raise ValueError(
                f"the run mixes ordered lists and dicts: query {bad!r} maps to "
                f"{type(run[bad]).__name__}; give every query a list of documents (an explicit "
                "order) or every query a dict {document: score}")
        if order == "score":
            raise ValueError("the run is a dict of lists: an explicit order without scores; "
                             "score it with order='rank' (the default for lists) or give "
                             "{document: score} dicts")
        qs, ds, vs = [], [], []
        for q, docs in run.items():
            qs.extend([q] * len(docs))
            ds.extend(docs)
            vs.extend(range(1, len(docs) + 1))
        return (np.array(qs, dtype=object), np.array(ds, dtype=object),
                np.array(vs, dtype=float), True)
    if order != "rank":
        q, d, v = _raw_table(run, "score", "run")
        return q, d, v, False
    if trec_format._is_file(run):
        run = trec_format.read_table(run, "run", order="rank")
    elif isinstance(run, pd.DataFrame) and "rank" not in run.columns:
        raise ValueError(
            f"order='rank' reads the rank column of the run DataFrame, which has none (it has "
            f"{list(run.columns)}); add a 'rank' column or use order='score'")
    q, d, v = _raw_table(run, "rank", "run")
    bad = np.flatnonzero(trec_format.bad_ranks(v))
    if bad.size:
        i = int(bad[0])
        raise ValueError(f"document {d[i]!r} of query {q[i]!r} has rank {v[i]:g}; an explicit "
                         "order numbers its documents 1, 2, ... (whole numbers from 1)")
    return q, d, v, True


def _text(ids) -> bool:
    return pd.api.types.infer_dtype(ids, skipna=False) in ("string", "empty")


def _dict_doc_codes(qrels, run, d1, d2):
    """Document codes of two dicts of dicts whose query and document ids are all text: the
    qrels' documents factorized, each run row looked up in its own query's judgements (small
    dicts, no hash table over every retrieved id), every other run row a code of its own. A
    dict holds each key once, so no query repeats a document; equal text is an equal key."""
    qd, ua = pd.factorize(d1)
    ua = np.asarray(ua, dtype=object)
    judged, at = {}, 0
    for q, inner in qrels.items():
        n = len(inner)
        judged[q] = dict(zip(inner, qd[at:at + n].tolist()))
        at += n
    empty = {}
    hit = np.fromiter(itertools.chain.from_iterable(
        map(judged.get(q, empty).get, inner, itertools.repeat(-1)) for q, inner in run.items()),
        dtype=np.int64, count=d2.size)
    miss = hit < 0
    rd = np.where(miss, ua.size + np.cumsum(miss) - 1, hit)
    return qd.astype(np.int64), rd, np.concatenate([ua, d2[miss]])


def _plain_numbers(dicts, n) -> np.ndarray | None:
    """The ``n`` values of some dicts, when all are plain ints and floats and finite, as
    float64; else None."""
    values = itertools.chain.from_iterable(map(dict.values, dicts))
    if not set(map(type, values)) <= trec_format._PLAIN_NUMBERS:
        return None
    try:
        out = np.fromiter(itertools.chain.from_iterable(map(dict.values, dicts)),
                          dtype=np.float64, count=n)
    except (OverflowError, TypeError, ValueError):
        return None
    return out if np.isfinite(out).all() else None


def _dict_inputs(qrels, run) -> _Inputs | None:
    """The inputs of two dicts of dicts whose ids are all text and whose values are all finite
    plain numbers, joined in one pass: each run row looks its document up in its own query's
    judgements (a dict holds a document once, and equal text is an equal key). Document
    codes are rows (qrels rows, then run rows), so no id is hashed twice. None for anything
    else: the general reading then gives its messages."""
    inner = [*qrels.values(), *run.values()]
    if not (all(isinstance(x, dict) for x in inner)
            and all(type(q) is str for q in itertools.chain(qrels, run))):
        return None
    chain = itertools.chain.from_iterable
    n1, n2 = sum(map(len, qrels.values())), sum(map(len, run.values()))
    if not (n1 and n2 and all(map(len, inner))):  # a query without documents: as the general
        return None
    rdocs = np.fromiter(chain(run.values()), dtype=object, count=n2)  # run rows' documents
    qdocs = np.fromiter(chain(qrels.values()), dtype=object, count=n1)
    if not (_text(rdocs) and _text(qdocs)):
        return None
    qv = _plain_numbers(qrels.values(), n1)
    rv = _plain_numbers(run.values(), n2)
    if qv is None or rv is None:
        return None
    # dicts compare NULs right, but every other spelling of the same run is refused: so is this
    # (after the last way back to the general reading, which checks them itself)
    check_no_nul(qdocs, "the document ids of the qrels")
    check_no_nul(rdocs, "the document ids of the run")
    check_no_nul([*qrels, *run], "the query ids")
    names = dict.fromkeys(qrels)
    names.update(dict.fromkeys(run))
    index = dict(zip(names, range(len(names))))
    qq = np.repeat(np.arange(len(qrels)), np.fromiter(map(len, qrels.values()), np.int64, len(qrels)))
    rq = np.repeat(np.fromiter(map(index.__getitem__, run), np.int64, len(run)),
                   np.fromiter(map(len, run.values()), np.int64, len(run)))
    empty, nan = {}, itertools.repeat(np.nan)
    rel = np.fromiter(chain(map(qrels.get(q, empty).get, docs, nan) for q, docs in run.items()),
                      dtype=np.float64, count=n2)
    return _Inputs(qq, np.arange(n1), qv, rq, n1 + np.arange(n2), rv,
                   np.fromiter(names, dtype=object, count=len(names)),
                   _DictNames(qrels, rdocs, n1), run_rel=rel)


class _DictNames:
    """Document ids of two dicts, by code (row): the qrels' rows, then the run's. The run's
    are an array; the qrels' are listed only if a message asks for one."""

    def __init__(self, qrels, run_docs, n_qrels):
        self.qrels, self.run_docs, self.n_qrels = qrels, run_docs, n_qrels
        self._all = None

    def __len__(self):
        return self.n_qrels + self.run_docs.size

    def __getitem__(self, idx):
        arr = np.asarray(idx)
        if not arr.ndim and int(arr) >= self.n_qrels:
            return self.run_docs[int(arr) - self.n_qrels]
        rows = arr - self.n_qrels
        if rows.size and rows.min() >= 0:
            return self.run_docs[rows]
        if self._all is None:
            qdocs = np.fromiter(itertools.chain.from_iterable(self.qrels.values()), dtype=object,
                                count=self.n_qrels)
            self._all = np.concatenate([qdocs, self.run_docs])
        return self._all[idx]


class _ByteNames:
    """Document ids kept as UTF-8 bytes (fixed-width ``S`` arrays, one per input, numbered one
    after the other), given as text when asked for: only the few that a tie or a message
    needs are ever decoded."""

    def __init__(self, *parts):
        self.parts = parts
        self.ends = np.cumsum([p.size for p in parts])

    def __len__(self):
        return int(self.ends[-1]) if len(self.ends) else 0

    def raw(self, idx) -> np.ndarray:
        """The ids of ``idx`` (a 1-D array) as bytes, one fixed-width ``S`` array."""
        flat = np.asarray(idx, dtype=np.int64).ravel()
        width = max(p.dtype.itemsize for p in self.parts)
        out = np.empty(flat.size, dtype=f"S{width}")
        k = np.searchsorted(self.ends, flat, side="right")
        for part in np.unique(k):
            at = np.flatnonzero(k == part)
            out[at] = self.parts[part][flat[at] - (int(self.ends[part - 1]) if part else 0)]
        return out

    def _one(self, i):
        k = int(np.searchsorted(self.ends, i, side="right"))
        return self.parts[k][i - (int(self.ends[k - 1]) if k else 0)].decode("utf-8")

    def __getitem__(self, idx):
        arr = np.asarray(idx)
        if arr.ndim == 0:
            return self._one(int(arr))
        flat = arr.ravel().astype(np.int64)
        out = np.empty(flat.size, dtype=object)
        k = np.searchsorted(self.ends, flat, side="right")
        for part in np.unique(k):
            at = np.flatnonzero(k == part)
            start = int(self.ends[part - 1]) if part else 0
            out[at] = [b.decode("utf-8") for b in self.parts[part][flat[at] - start].tolist()]
        return out.reshape(arr.shape)


def _as_table(obj, what: str, order=None):
    """A source read once by the one reader (:func:`trec_format.read_table`), a table already
    read, or None for the other spellings (dicts, DataFrames)."""
    if isinstance(obj, trec_format.TrecTable):
        return obj
    if trec_format._is_file(obj):
        return trec_format.read_table(obj, what, order="rank" if order == "rank" else "score")
    return None


#: Run rows joined to the judgements at once (:func:`_table_inputs`): the keys and positions of
#: a block (16 MB) are all the join holds beside its result.
JOIN_BLOCK_ROWS = 1 << 20


def _table_inputs(a, b) -> _Inputs | None:
    """The inputs of a qrels table and a run table (from files), joined without text: each
    (query, document) pair is keyed by a hash of the query's text and the document's bytes,
    the run's pairs looked up among the judgements', every match confirmed byte for byte.
    Document codes are rows (qrels, then run): the reader already refused a document listed
    twice. None when two judgements share a key (the general reading then decides)."""
    n1, n2 = len(a), len(b)
    if not (n1 and n2):
        return None
    names = dict.fromkeys(a.qnames.tolist())
    names.update(dict.fromkeys(b.qnames.tolist()))
    index = dict(zip(names, range(len(names))))
    small = np.int32 if len(names) < 2**31 else np.int64
    qq = np.fromiter(map(index.__getitem__, a.qnames), small, a.qnames.size)[a.qcodes]
    rq = np.fromiter(map(index.__getitem__, b.qnames), small, b.qnames.size)[b.qcodes]
    judged = pd.Index(trec_format.pair_keys(qq, a.dhash()))
    if not judged.is_unique:
        return None
    rel = np.full(n2, np.nan)
    for start in range(0, n2, JOIN_BLOCK_ROWS):  # the run's keys a block at a time
        end = min(start + JOIN_BLOCK_ROWS, n2)
        pos = judged.get_indexer(trec_format.pair_keys(rq[start:end],
                                                       b.dhash(slice(start, end))))
        hit = np.flatnonzero(pos >= 0)
        at = pos[hit]
        if not (np.array_equal(qq[at], rq[start + hit])
                and bool(np.all(a.dbytes[at] == b.dbytes[start + hit]))):
            return None
        rel[start + hit] = a.values[at]
    del judged
    codes = np.int32 if n1 + n2 < 2**31 else np.int64
    return _Inputs(qq, np.arange(n1, dtype=codes), a.values, rq,
                   np.arange(n1, n1 + n2, dtype=codes), b.values,
                   np.fromiter(names, dtype=object, count=len(names)),
                   _ByteNames(a.dbytes, b.dbytes), explicit=b.what == "run_rank", run_rel=rel)


def _refuse_exponent_level(qrels, conv) -> None:
    """A profile that takes whole relevance levels refuses a level written with an exponent
    that trec_eval would read as another number (``1e2``: C's ``atol`` stops at the ``e`` and
    reads 1), as it refuses ``0.5``; the file readers note the first such level."""
    if conv is None or not conv.whole_labels:
        return
    if isinstance(qrels, trec_format.TrecTable):
        note = qrels.exponent_note()
    elif isinstance(qrels, pd.DataFrame):
        note = qrels.attrs.get("exponent")
    else:
        note = None
    if not note:
        return
    name, line, q, d, text = note
    raise ValueError(
        f"{name}:{line}: the relevance of document {d!r} for query {q!r} is written {text!r}, "
        f"with an exponent; the {conv.name} profile takes whole levels as trec_eval reads them, "
        f"with C's atol, which stops at the 'e' and gives {trec_format._atol(text)} where {text!r} is "
        f"{float(text):g} (pytrec_eval's, ir_measures' and ranx's readers refuse it); write the "
        "level in digits")


def _check_order(order) -> None:
    if order is not None:  # None: not given
        check_choice(order, ORDERS, "order", explain=(
            "'score': rank by score, ties by the profile's rule; 'rank': an explicit order, "
            "scored as given"))


def _load(qrels, run, order=None, conv=None) -> _Inputs:
    """The inputs of :func:`evaluate_run` joined: files (and tables already read) by the one
    reader, read once here, whatever path follows; then the fast joins of tables and of
    dicts, else the general reading. With ``conv``, a level written with an exponent is
    refused under a profile that takes whole levels."""
    _check_order(order)  # before the fast paths, which do not read it
    qt = _as_table(qrels, "qrels")
    rt = _as_table(run, "run", order)
    if rt is not None:
        if order == "rank" and rt.what != "run_rank":
            raise ValueError(f"{rt.name}: the run was read by its scores; read it with "
                             "order='rank' to score its rank column as an explicit order")
        if rt.what == "run_rank":
            order = "rank"
    _refuse_exponent_level(qrels if qt is None else qt, conv)
    if qt is not None and rt is not None:
        fast = _table_inputs(qt, rt)
        if fast is not None:
            return fast
    qrels = qrels if qt is None else qt
    run = run if rt is None else rt
    if (order != "rank" and type(qrels) is dict and type(run) is dict
            and not any(_is_list(v) for v in run.values())):
        fast = _dict_inputs(qrels, run)
        if fast is not None:
            return fast
    q1, d1, v1 = _raw_table(qrels, "relevance", "qrels")
    q2, d2, v2, explicit = _run_columns(run, order)
    qq, rq, qnames = _codes(q1, q2)
    if (isinstance(qrels, Mapping) and isinstance(run, Mapping) and not explicit
            and d1.size and d2.size and _text(q1) and _text(q2) and _text(d1) and _text(d2)):
        qd, rd, dnames = _dict_doc_codes(qrels, run, d1, d2)
    else:
        qd, rd, dnames = _codes(d1, d2, integer_codes=True)
    qv = _numbers(v1, qq, qd, qnames, dnames, "relevance", "qrels")
    rv = _numbers(v2, rq, rd, qnames, dnames, "rank" if explicit else "score", "run")
    return _Inputs(qq, qd, qv, rq, rd, rv, qnames, dnames, explicit)


# --------------------------------------------------------------------------------------------
# grouping and ranking


#: Cells (queries x widest query) of the padded matrices :func:`evaluate_run` scores at once:
#: a larger run is scored a block of queries at a time (about 16 such matrices are alive, so a
#: block takes some 30 MB), and a signal is answered between blocks.
SCORE_BLOCK_CELLS = 1 << 18


class _Groups:
    """Rows grouped by a code, stably, and a padded (groups x widest group) layout of them."""

    def __init__(self, codes, n_groups, width=None):
        codes = np.asarray(codes)
        if codes.dtype.kind not in "iu" or codes.dtype.itemsize < 4:
            codes = codes.astype(np.int64)
        self.sorted = bool(codes.size == 0 or np.all(codes[1:] >= codes[:-1]))
        self.order = None if self.sorted else np.argsort(codes, kind="stable")
        if self.sorted:  # no copy of the codes (bincount would make one of int32 codes)
            bounds = np.searchsorted(codes, np.arange(n_groups + 1, dtype=codes.dtype))
            self.counts = np.diff(bounds).astype(np.int64)
        else:
            self.counts = np.bincount(codes, minlength=n_groups).astype(np.int64)
        if width is None:  # the widest group; a block of groups takes the width of the whole
            width = int(self.counts.max()) if n_groups and codes.size else 0
        self.width = width
        self.full = bool(n_groups and np.all(self.counts == self.width))
        self._valid = None

    def pad(self, values, fill, dtype=float):
        values = np.asarray(values)
        if self.order is not None:
            values = values[self.order]
        n_g = self.counts.shape[0]
        if self.full:
            return values.astype(dtype, copy=False).reshape(n_g, self.width)
        out = np.full((n_g, self.width), fill, dtype=dtype)
        out[self.valid()] = values  # row by row, in order: each group's values, then padding
        return out

    def valid(self):
        if self._valid is None:
            self._valid = np.arange(self.width)[None, :] < self.counts[:, None]
        return self._valid


def _first_duplicate(doc_m, valid):
    """(row, doc code) of a document listed twice in a row of a padded code matrix, or None."""
    if doc_m.shape[1] < 2:
        return None
    s = np.sort(np.where(valid, doc_m, -1), axis=1)
    dup = (s[:, 1:] == s[:, :-1]) & (s[:, 1:] >= 0)
    if not dup.any():
        return None
    r, c = np.argwhere(dup)[0]
    return int(r), int(s[r, c])


def _duplicate_error(what, qname, dname):
    verb = "retrieved" if what == "run" else "judged"
    return ValueError(
        f"document {dname!r} is {verb} twice for query {qname!r} in the {what}; trec_eval refuses "
        "duplicate documents and no measure is defined with them"
    )


def _numba_quicksort(keys: np.ndarray) -> np.ndarray:
    """``np.argsort(keys)`` as numba compiles it (kind='quicksort'): the order ranx leaves ties in.

    A transcription of numba/misc/quicksort.py (run_quicksort1 with is_argsort): partitions
    with a median-of-three pivot until a range holds fewer than 16 items, then insertion sort.
    """
    a = [float(x) for x in keys]
    r = list(range(len(a)))
    n_items = len(a)
    if n_items < 2:
        return np.array(r, dtype=np.int64)
    stack = [(0, n_items - 1)]
    while stack:
        low, high = stack.pop()
        while high - low >= 15:
            mid = (low + high) >> 1
            if a[r[mid]] < a[r[low]]:
                r[low], r[mid] = r[mid], r[low]
            if a[r[high]] < a[r[mid]]:
                r[high], r[mid] = r[mid], r[high]
            if a[r[mid]] < a[r[low]]:
                r[low], r[mid] = r[mid], r[low]
            pivot = a[r[mid]]
            r[high], r[mid] = r[mid], r[high]
            i, j = low, high - 1
            while True:
                while i < high and a[r[i]] < pivot:
                    i += 1
                while j >= low and pivot < a[r[j]]:
                    j -= 1
                if i >= j:
                    break
                r[i], r[j] = r[j], r[i]
                i += 1
                j -= 1
            r[i], r[high] = r[high], r[i]
            if high - i > i - low:
                if high > i:
                    stack.append((i + 1, high))
                high = i - 1
            else:
                if i > low:
                    stack.append((low, i - 1))
                low = i + 1
        for i in range(low + 1, high + 1):
            k = r[i]
            v = a[k]
            j = i
            while j > low and v < a[r[j - 1]]:
                r[j] = r[j - 1]
                j -= 1
            r[j] = k
    return np.array(r, dtype=np.int64)


class _Moves(NamedTuple):
    """A reordering that moves a few cells of a matrix: cell ``to[i]`` (flat) takes the value
    of cell ``frm[i]``; every other cell stays."""

    to: np.ndarray
    frm: np.ndarray

    def apply(self, mat):
        out = mat.copy()
        out.ravel()[self.to] = mat.ravel()[self.frm]
        return out


def _text_keys(dnames, codes) -> np.ndarray:
    """The ids of ``codes`` as UTF-8 bytes (strcmp's order, and Python's), zero-padded, the
    byte positions every id shares dropped: (n, bytes) uint8 whose lexicographic order is the
    ids' order (a shorter id that is a prefix comes first). numpy sorts 8-bit keys by radix
    sort, so :func:`numpy.lexsort` over them takes linear time."""
    if isinstance(dnames, _ByteNames):  # a plain file's ids: bytes already
        raw = np.ascontiguousarray(dnames.raw(codes).ravel())
        if raw.dtype.itemsize == 0 or not raw.size:
            return np.zeros((raw.size, 1), dtype=np.uint8)
        keys = raw.view(np.uint8).reshape(raw.size, raw.dtype.itemsize)
    else:
        keys = _byte_matrix(dnames[codes], known_text=isinstance(dnames, _DictNames))
    if not keys.shape[0]:
        return keys
    varying = (keys != keys[0]).any(axis=0)
    return keys[:, varying] if varying.any() else keys[:, :1]


def _byte_matrix(texts, known_text: bool = False) -> np.ndarray:
    """Text ids as a (n, width) uint8 matrix of their UTF-8 bytes, zero-padded. Ids of one
    length in ASCII (ClueWeb's, most collections') are joined and encoded in one piece; others
    go through numpy's conversion, one id at a time."""
    items = np.ravel(texts).tolist()
    n = len(items)
    if not n:
        return np.zeros((0, 1), dtype=np.uint8)
    if known_text or all(map(str.__instancecheck__, items)):
        width = len(items[0])
        data = ("\0".join(items) + "\0").encode("utf-8", "surrogateescape")
        if width and len(data) == n * (width + 1):
            mat = np.frombuffer(data, dtype=np.uint8).reshape(n, width + 1)
            # every row ends in the separator and holds no other: every id has `width` bytes
            if not mat[:, width].any() and mat[:, :width].all():
                return mat[:, :width]
    try:
        raw = np.asarray(items, dtype=object).astype("S")
    except UnicodeEncodeError:
        raw = np.array([str(t).encode("utf-8", "surrogateescape") for t in items], dtype="S")
    if raw.dtype.itemsize == 0:
        return np.zeros((n, 1), dtype=np.uint8)
    return np.ascontiguousarray(raw).view(np.uint8).reshape(n, raw.dtype.itemsize)


def _text_order(dnames, codes, groups=None, descending=False) -> np.ndarray:
    """The positions of ``codes`` sorted by their ids as text (stable), within ``groups``
    (whole numbers, the primary key) when given: one lexsort of 8- and 16-bit keys."""
    keys = _text_keys(dnames, codes)
    if descending:
        keys = np.uint8(255) - keys  # the reverse order of fixed-width, zero-padded bytes
    cols = list(keys.T[::-1])
    if groups is not None:
        g = np.asarray(groups, dtype=np.int64)
        cols.append((g & 0xFFFF).astype(np.uint16))
        high = g >> 16
        while high.any():
            cols.append((high & 0xFFFF).astype(np.uint16))
            high = high >> 16
    return np.lexsort(cols)


class _Batch:
    """The documents of each query in input order, padded: scores, labels, judged, doc codes.

    ``ranked(rule)`` puts every row in rank order under a tie rule; a run already written in
    rank order (as TREC runs are) and free of ties is used as it is, without a sort or a copy.
    """

    def __init__(self, score, label, judged, doc, n, dnames, explicit=False, max_documents=None,
                 judged_only=False, gains_only=False, scores_needed=True):
        self.score, self.label, self.judged, self.doc, self.n = score, label, judged, doc, n
        self.dnames = dnames
        self.explicit = explicit  # scores are negated ranks of an explicit order: no tie rule
        self.max_documents, self.judged_only = max_documents, judged_only  # trec_eval -M, -J
        # the measures asked for see nothing of a document but its gain (a positive level):
        # tied documents of equal gain need no order among them
        self.gains_only = gains_only
        # the measures read the ranked scores (scikit-learn's thresholds and averages,
        # torchmetrics' scores of 0 or less); else ranked() leaves them out (None)
        self.scores_needed = scores_needed
        self._single = None
        self._is_single = False
        self.padded = bool(score.shape[1] and np.any(n < score.shape[1]))
        self.valid = np.arange(score.shape[1])[None, :] < n[:, None] if self.padded else None
        self._neg = None
        self._base = None
        self._ranked = {}

    def _negated(self):
        if self._neg is None:
            self._neg = -self.score if not self.padded else np.where(self.valid, -self.score, np.inf)
        return self._neg

    def _base_order(self):
        """Stable sort of every row by decreasing score (None: the rows already are)."""
        if self._base is None:
            neg = self._negated()
            if not neg.shape[1] or np.all(neg[:, 1:] >= neg[:, :-1]):
                self._base = (None,)
            else:
                self._base = (np.argsort(neg, axis=1, kind="stable"),)
        return self._base[0]

    def order(self, rule):
        """Column order of each row from best to worst under a tie rule (None: as stored)."""
        if rule in ("average", "threshold"):
            rule = "input_order"
        perm = self._base_order()
        if rule == "input_order":
            return perm
        neg = self._negated()
        s = neg if perm is None else np.take_along_axis(neg, perm, axis=1)
        if s.shape[1] < 2:
            return perm
        eq = (s[:, 1:] == s[:, :-1]) & np.isfinite(s[:, 1:])
        rows = np.flatnonzero(eq.any(axis=1))
        if not rows.size:
            return perm
        if rule in ("docno_desc", "docno_asc"):
            # the documents of each run of equal scores, in score order, put in id order
            moves = self._tie_moves(eq, rule, perm)
            return moves if perm is None else moves.apply(perm)
        perm = np.broadcast_to(np.arange(s.shape[1]), s.shape).copy() if perm is None else perm.copy()
        if rule == "numba_quicksort":
            for r in rows:
                n = int(self.n[r])
                if n > 15:
                    perm[r, :n] = _numba_quicksort(neg[r, :n])
        elif rule == "numba_quicksort_twice":
            for r in rows:
                n = int(self.n[r])
                if n > 15:
                    first = _numba_quicksort(neg[r, :n])
                    perm[r, :n] = first[_numba_quicksort(neg[r, :n][first])]
        elif rule == "numba_quicksort_reversed":
            for r in rows:
                n = int(self.n[r])
                perm[r, :n] = _numba_quicksort(-neg[r, :n])[::-1]
        else:
            raise ValueError(f"unknown tie rule {rule!r}")
        return perm

    def _tie_moves(self, eq, rule, perm=None):
        """Rows in score order (as stored, or as ``perm`` orders them): only the documents of
        each run of equal scores move, put in document id order, and only in runs whose
        documents differ in relevance or judgement, or in gain when the measures see nothing
        else (``gains_only``; elsewhere any order gives the same measures, which see nothing of
        a document but those). Returns (to, from): flat
        positions in score order of the tied documents and the flat position each takes its
        document from (the order a sort of each whole row by score, then id, gives)."""
        q, w = self.score.shape
        left = np.zeros((q, w), dtype=bool)
        left[:, 1:] = eq  # tied with the document before it
        right = np.zeros((q, w), dtype=bool)
        right[:, :-1] = eq
        to = np.flatnonzero(left | right)  # row-major: each tied run is contiguous
        if not to.size:
            return _Moves(to, to)

        def at(mat):
            return (mat if perm is None else np.take_along_axis(mat, perm, axis=1)).ravel()[to]

        first = ~left.ravel()[to]
        group = np.cumsum(first)  # from 1
        differs = np.zeros(to.size, dtype=bool)  # from the tied document before it
        if self.gains_only:
            gain = np.maximum(at(self.label), 0.0)
            differs[1:] = (gain[1:] != gain[:-1]) & ~first[1:]
        else:
            lab, jud = at(self.label), at(self.judged)
            differs[1:] = ((lab[1:] != lab[:-1]) | (jud[1:] != jud[:-1])) & ~first[1:]
        mixed = np.zeros(int(group[-1]) + 1, dtype=bool)
        mixed[group[differs]] = True
        keep = mixed[group]
        if not keep.any():
            return _Moves(to[:0], to[:0])
        docs = at(self.doc)[keep]
        to, group = to[keep], group[keep]
        # each group of tied documents in id order, ascending or descending: one lexsort of
        # their bytes and the group (ids within a group differ)
        within = _text_order(self.dnames, docs, group, descending=rule == "docno_desc")
        return _Moves(to, to[within])

    def single(self):
        """The same batch with scores rounded to single precision (trec_eval's C float)."""
        if self._is_single:
            return self
        if self._single is None:
            with np.errstate(over="ignore"):
                score = self.score.astype(np.float32).astype(float)
            self._single = _Batch(score, self.label, self.judged, self.doc, self.n, self.dnames,
                                  max_documents=self.max_documents, judged_only=self.judged_only,
                                  gains_only=self.gains_only, scores_needed=self.scores_needed)
            # already single: a flag, not a reference to itself, which would keep every
            # block's matrices alive until the garbage collector ran (0.45 GB at 10 M lines)
            self._single._is_single = True
        return self._single

    def ranked(self, rule):
        """(labels, judged, scores) in rank order under ``rule``; padding: 0, False, -inf
        (scores None when no measure reads them, ``scores_needed``). With ``max_documents`` or
        ``judged_only`` (trec_eval's -M and -J) the rows are cut as trec_eval cuts them, and
        :meth:`ranked_n` gives each row's length after the cut."""
        key = "input_order" if rule in ("average", "threshold") else rule
        if key not in self._ranked:
            perm = self.order(key)
            score = None
            if self.scores_needed or self.judged_only:
                score = self.score if not self.padded else np.where(self.valid, self.score, -np.inf)
            if perm is None:
                out = (self.label, self.judged, score)
            elif isinstance(perm, _Moves):
                out = tuple(None if x is None else perm.apply(x)
                            for x in (self.label, self.judged, score))
            else:
                out = tuple(None if x is None else np.take_along_axis(x, perm, axis=1)
                            for x in (self.label, self.judged, score))
            self._ranked[key] = self._cut(*out)
        return self._ranked[key][:3]

    def ranked_n(self, rule):
        """Documents of each row in :meth:`ranked` (after trec_eval's -M and -J)."""
        key = "input_order" if rule in ("average", "threshold") else rule
        self.ranked(rule)
        return self._ranked[key][3]

    def _cut(self, label, judged, score):
        """trec_eval's -M (the first ``max_documents`` of each ranking) then -J (only documents
        judged 0 or more, in their order), on ranked rows; returns the rows and their lengths."""
        n = self.n
        if self.max_documents is None and not self.judged_only:
            return label, judged, score, n
        w = label.shape[1]
        if self.max_documents is not None and self.max_documents < w:
            m = int(self.max_documents)
            label, judged, score = label[:, :m], judged[:, :m], None if score is None else score[:, :m]
            n = np.minimum(n, m)
            w = m
        if self.judged_only:
            valid = np.arange(w)[None, :] < n[:, None]
            keep = valid & judged & (label >= 0)
            perm = np.argsort(~keep, axis=1, kind="stable")
            label, judged, score = (None if x is None else np.take_along_axis(x, perm, axis=1)
                                    for x in (label, judged, score))
            n = keep.sum(axis=1).astype(np.int64)
            inside = np.arange(w)[None, :] < n[:, None]
            label = np.where(inside, label, 0.0)
            judged = inside & judged
            score = None if score is None else np.where(inside, score, -np.inf)
        return label, judged, score, n


# --------------------------------------------------------------------------------------------
# measures on ranked matrices


def _discount(width):
    return 1.0 / np.log2(np.arange(2, width + 2, dtype=float))


def _cut(mat, k):
    return mat if k is None else mat[:, :k]


def _safe_div(num, den):
    den = np.asarray(den, dtype=float)
    return np.where(den > 0, num / np.where(den > 0, den, 1.0), 0.0)


def _gain(labels, m: Measure, conv: Convention):
    if conv.negative_labels == "gain":
        g = labels
    elif conv.negative_labels == "below_rel":
        g = np.where(labels >= m.rel, labels, 0.0)
    else:
        g = np.where(labels > 0, labels, 0.0)
    return np.expm1(g * np.log(2.0)) if m.exp_gain else g


def _dcg_ranked(gains, k):
    """DCG of each row: the discounted gains added from rank 1 down, one row at a time (a
    cumulative sum, as trec_eval adds them), so that a query's value does not depend on the
    other rows computed with it (a matrix product's rounding depends on the batch's shape)."""
    g = _cut(gains, k)
    rows, cols = np.nonzero(g)  # row by row, left to right: the order trec_eval adds them
    if not rows.size:
        return np.zeros(g.shape[0])
    # a zero gain adds exactly nothing, so the sum over the nonzero gains, each row's in rank
    # order (bincount adds in index order), is the sum over every rank
    return np.bincount(rows, weights=g[rows, cols] * _discount(int(cols.max()) + 1)[cols],
                       minlength=g.shape[0])


def _dcg_tie_average(gains_ranked, scores_ranked, n, k):
    """McSherry-Najork DCG: each tied group gets its mean gain at each of its positions."""
    q, w = gains_ranked.shape
    if not w:
        return np.zeros(q)
    disc = _discount(w)
    if k is not None:
        disc = np.where(np.arange(w) < k, disc, 0.0)
    valid = np.arange(w)[None, :] < n[:, None]
    new = np.ones((q, w), dtype=bool)
    new[:, 1:] = scores_ranked[:, 1:] != scores_ranked[:, :-1]
    gid = np.cumsum(new.ravel()) - 1
    gid = gid.reshape(q, w)
    flat_valid = valid.ravel()
    ids = gid.ravel()[flat_valid]
    n_groups = int(gid.max()) + 1
    gsum = np.bincount(ids, weights=gains_ranked.ravel()[flat_valid], minlength=n_groups)
    dsum = np.bincount(ids, weights=np.broadcast_to(disc, (q, w)).ravel()[flat_valid], minlength=n_groups)
    cnt = np.bincount(ids, minlength=n_groups)
    contrib = np.where(cnt > 0, gsum * dsum / np.maximum(cnt, 1), 0.0)
    row_of_group = np.zeros(n_groups, dtype=np.int64)
    row_of_group[gid.ravel()] = np.repeat(np.arange(q), w)
    return np.bincount(row_of_group, weights=contrib, minlength=q)


def _threshold_ap(rel_ranked, scores_ranked, n, n_pos):
    """scikit-learn's step-wise AP: one threshold per tied group, the sum of dR * P over them.

    Each relevant document contributes the precision at the end of its tied group, divided by
    the number of relevant documents.
    """
    q, w = rel_ranked.shape
    if not w:
        return np.zeros(q)
    cols = np.arange(w)
    valid = cols[None, :] < n[:, None]
    last = np.zeros((q, w), dtype=bool)
    last[:, :-1] = scores_ranked[:, :-1] != scores_ranked[:, 1:]
    last[:, -1] = True
    last |= cols[None, :] == (n - 1)[:, None]
    idx = np.where(last, cols[None, :], w - 1)
    end = np.minimum.accumulate(idx[:, ::-1], axis=1)[:, ::-1]
    hits = np.cumsum(rel_ranked * valid, axis=1)
    prec_end = np.take_along_axis(hits, end, axis=1) / (end + 1.0)
    return _safe_div((rel_ranked * valid * prec_end).sum(axis=1), n_pos)


#: Families whose value depends on more of a document than its gain: whether it is judged,
#: or judged negative (trec_eval's unjudged-in-pool), or its text (relstring).
_SEES_JUDGEMENTS = frozenset({"Judged", "Bpref", "gm_bpref", "infAP", "unj", "rbp_resid",
                              "num_nonrel_judged_ret", "relstring"})
#: Families computed from trec_eval's relevance codes (:mod:`rankbook.trec_measures`).
_TREC_CODE_FAMILIES = frozenset({
    "Bpref", "gm_bpref", "infAP", "IPrec", "11pt_avg", "Rprec_mult", "NumRet", "NumRel",
    "NumRelRet", "NumQ", "num_nonrel_judged_ret", "utility", "SetP", "SetR", "SetF", "SetAP",
    "SetRelP", "relative_P", "binG", "G", "ndcg_rel", "Rndcg", "rbp", "rbp_resid", "unj"})


def _trec_code_values(m: Measure, conv: Convention, lab, judged, n, levels):
    """A family of :mod:`rankbook.trec_measures` on ranked rows: each document's code is its
    judged level, NOT_POOLED when the qrels do not list it and UNJUDGED when they list it
    with a negative level (trec_eval's form_res_rels.c)."""
    code = np.where(judged, np.where(lab >= 0, lab, float(_tm.UNJUDGED)), float(_tm.NOT_POOLED))
    r = _tm.Ranking(code, np.asarray(n, dtype=np.int64), levels)
    fam, rel = m.family, m.rel
    simple = {"Bpref": _tm.bpref, "gm_bpref": _tm.bpref, "infAP": _tm.infap,
              "NumRel": _tm.num_rel, "NumRelRet": _tm.num_rel_ret,
              "num_nonrel_judged_ret": _tm.num_nonrel_judged_ret, "utility": _tm.utility,
              "SetP": _tm.set_precision, "SetR": _tm.set_recall, "SetAP": _tm.set_map,
              "SetRelP": _tm.set_relative_precision, "binG": _tm.bin_g, "Rndcg": _tm.rndcg}
    if fam in simple:
        return simple[fam](r, rel)
    if fam == "NumRet":
        return _tm.num_ret(r)
    if fam == "NumQ":
        return np.ones(r.n.shape)
    if fam == "IPrec":
        return _tm.iprec_at_recall(r, m.x, rel, conv.recall_cutoff)
    if fam == "11pt_avg":
        return _tm.eleven_point_average(r, rel, conv.recall_cutoff)
    if fam == "Rprec_mult":
        return _tm.rprec_mult(r, m.x, rel, fused=conv.recall_cutoff == "plus_0.9_fused")
    if fam == "SetF":
        return _tm.set_f(r, rel, m.x)
    if fam == "relative_P":
        return _tm.relative_precision(r, m.k, rel)
    if fam == "G":
        return _tm.g(r)
    if fam == "ndcg_rel":
        return _tm.ndcg_rel(r)
    if fam == "rbp":
        return _tm.rbp(r, m.x)
    if fam == "rbp_resid":
        return _tm.rbp_resid(r, m.x)
    if fam == "unj":
        return _tm.unjudged(r, m.k)
    raise AssertionError(fam)


def _printed5(values) -> np.ndarray:
    """Each value as printf's %.5f prints it, read back (gdeval.pl's output, as ir_measures
    reads it)."""
    return np.array([float(f"{x:.5f}") for x in np.asarray(values, dtype=float)], dtype=float)


def _values(m: Measure, conv: Convention, batch: _Batch, num_rel, ideal, label_sum, levels=None):
    """Per-row values of one measure (rows: the batch's queries).

    Padding holds label 0, judged False and score -inf, so it is never relevant, judged or a
    gain; a cut-off slices the first k columns before anything is computed. ``levels`` holds
    each query's judged levels (NaN-padded), for the families of :mod:`rankbook.trec_measures`.
    """
    gdeval = (m.exp_gain and conv.exp_dcg == "gdeval") or m.family == "ERR"
    rule = "docno_desc" if gdeval else conv.tie_rule(m.form)
    if conv.score_precision(m.form) == "float32" and not gdeval and not batch.explicit:
        batch = batch.single()
    lab, judged, sc = batch.ranked(rule)
    n = batch.ranked_n(rule)
    k, fam = m.k, m.family
    if fam in _TREC_CODE_FAMILIES:
        return _trec_code_values(m, conv, lab, judged, n, levels)
    if fam == "relstring":  # text: built by relstrings() only
        code = np.where(judged, np.where(lab >= 0, lab, float(_tm.UNJUDGED)), float(_tm.NOT_POOLED))
        return np.array(_tm.relstring(_tm.Ranking(code, np.asarray(n, dtype=np.int64), levels), m.k),
                        dtype=object)
    if fam == "ERR":  # gdeval.pl prints %.5f and ir_measures reads that text back
        return _printed5(_tm.err(lab, n, k))
    if fam == "gm_map":
        fam = "AP"
    cut = (lambda x: x) if k is None else (lambda x: x[:, :k])
    if conv.judgments == "retrieved":
        n_rel = (lab >= m.rel).sum(axis=1).astype(float)
    else:
        n_rel = num_rel[m.rel]

    def relevant(filtered):
        rel = cut(lab) >= m.rel
        if filtered and not conv.nonpositive_scores_relevant and not batch.explicit:
            rel &= cut(sc) > 0
        return rel

    if fam == "P":
        out = relevant(True).sum(axis=1) / k
        return np.where(n_rel > 0, out, 0.0) if conv.judgments == "retrieved" else out
    if fam == "Success":
        return relevant(False).any(axis=1).astype(float)
    if fam == "R":
        return _safe_div(relevant(True).sum(axis=1), n_rel)
    if fam == "Rprec":
        r = n_rel.astype(np.int64)
        width = min(lab.shape[1], int(r.max()) if r.size else 0)
        rel = lab[:, :width] >= m.rel
        csum = np.concatenate([np.zeros((rel.shape[0], 1)), np.cumsum(rel, axis=1)], axis=1)
        return _safe_div(csum[np.arange(rel.shape[0]), np.minimum(r, width)], n_rel)
    if fam == "RR":
        rr = relevant(True)
        if not rr.shape[1]:
            return np.zeros(rr.shape[0])
        first = np.argmax(rr, axis=1)
        return np.where(rr.any(axis=1), 1.0 / (first + 1.0), 0.0)
    if fam in ("AP", "LRAP") and rule == "threshold":
        ap = _threshold_ap((lab >= m.rel).astype(float), sc, n, n_rel)
        if fam == "AP":
            return ap
        return np.where((n_rel == 0) | (n_rel == n), conv.no_relevant_lrap, ap)
    if fam == "AP":
        # the precision at each relevant document only: its count among the row's relevant
        # documents over its rank (no running count over every position)
        rr = relevant(True)
        rows, cols = np.nonzero(rr)
        cnt = np.bincount(rows, minlength=rr.shape[0])
        hits = np.arange(1, rows.size + 1) - np.repeat(np.cumsum(cnt) - cnt, cnt)
        num = np.bincount(rows, weights=hits / (cols + 1.0), minlength=rr.shape[0])
        den = cnt if conv.ap_divisor == "relevant_in_cut" else n_rel
        return _safe_div(num, den)
    if fam == "Judged":
        if k is None:
            kk = n
        elif conv.judged_cut_divisor == "list":
            kk = np.minimum(k, n)
        else:
            kk = np.full_like(n, k)
        return _safe_div(cut(judged).sum(axis=1), kk)
    if fam in ("nDCG", "DCG"):
        if rule == "average":
            dcg = _dcg_tie_average(_gain(lab, m, conv), sc, n, k)
        else:
            dcg = _dcg_ranked(_gain(cut(lab), m, conv), None)
        if fam == "DCG":
            return dcg
        if conv.judgments == "retrieved":
            g = _gain(batch.label, m, conv)
            if batch.padded:
                g = np.where(batch.valid, g, -np.inf)
            ideal_gains = -np.sort(-g, axis=1)
            ideal_gains = np.where(np.isfinite(ideal_gains), ideal_gains, 0.0)
        else:
            ideal_gains = _gain(ideal[m.rel], m, conv)
        idcg = _dcg_ranked(cut(ideal_gains), None)
        out = np.where(idcg != 0, dcg / np.where(idcg != 0, idcg, 1.0), 0.0)
        if conv.name == "torchmetrics":
            out = np.where(label_sum != 0, out, 0.0)
        if gdeval:  # gdeval.pl prints %.5f and ir_measures reads that text back
            out = _printed5(out)
        return out
    raise AssertionError(fam)


# --------------------------------------------------------------------------------------------
# evaluate_run


def _join_labels(doc_m, a, qindex, seen, nd, qv):
    """(judged, relevance) of each document of a padded block whose first query is ``a``: its
    (query, document) key looked up among the judgements' keys (``qindex``); only documents
    judged for some query (``seen``) are looked up."""
    pos = np.full(doc_m.shape, -1, dtype=np.int64)
    if qindex is not None:
        probe = seen[doc_m] if seen is not None else doc_m >= 0
        r_, c_ = np.nonzero(probe)
        del probe
        rkey = (r_ + a).astype(np.int64) * nd + doc_m[r_, c_]
        pos[r_, c_] = qindex.get_indexer(rkey)
        del r_, c_, rkey
    judged_m = (pos >= 0) & (doc_m >= 0)
    label_m = np.where(judged_m, qv[np.maximum(pos, 0)] if qv.size else 0.0, 0.0)
    return judged_m, label_m


class RunEvaluation(NamedTuple):
    """What :func:`evaluate_run` returns: ``per_query`` and ``aggregate``.

    ``per_query`` is a tidy DataFrame with columns ``query_id``, ``measure``, ``value``: one row
    per query and measure, sorted by query id, then by measure in the order given.
    ``aggregate`` is a Series indexed by measure name: the mean over the evaluated queries (or
    the pooled value).
    """

    per_query: pd.DataFrame
    aggregate: pd.Series


def _query_sort_key(names):
    """Query ids in a natural order: by value when every id is an integer, else as text."""
    names = [str(x) for x in names]
    if names and all(re.fullmatch(r"-?[0-9]+", s) for s in names):
        return np.array(sorted(range(len(names)), key=lambda i: int(names[i])), dtype=np.int64)
    return np.array(sorted(range(len(names)), key=lambda i: names[i]), dtype=np.int64)


def _such_queries(n: int) -> str:
    """ "the only such query" or "3 such queries", for the messages about unmatched queries.

    >>> _such_queries(1), _such_queries(3)
    ('the only such query', '3 such queries')
    """
    return "the only such query" if n == 1 else f"{n:,} such queries"


def _numeric_twins(data, in_qrels, in_run) -> str:
    """' ... the qrels' '401.0' is the run's '401' ...' when ids of the two inputs are the same
    number written differently (ids are compared as text), else ''."""
    def as_numbers(mask):
        out = {}
        for name in data.qnames[np.flatnonzero(mask)][:10000]:
            try:
                out.setdefault(float(str(name)), str(name))
            except ValueError:
                continue
        return out

    only_q = as_numbers(in_qrels & ~in_run)
    only_r = as_numbers(in_run & ~in_qrels)
    twins = [(only_q[v], only_r[v]) for v in only_q if v in only_r and only_q[v] != only_r[v]]
    if not twins:
        return ""
    a, b = twins[0]
    more = f" ({len(twins)} such pairs)" if len(twins) > 1 else ""
    return (f"; the qrels' {a!r} and the run's {b!r} are the same number written differently"
            f"{more}: ids are compared as text, so write them alike in both inputs")


def _no_match_message(data, in_qrels, in_run, conv) -> str:
    def some(mask):
        names = data.qnames[np.flatnonzero(mask)]
        shown = ", ".join(repr(str(x)) for x in names[:3])
        return f"{names.size} queries ({shown}{', ...' if names.size > 3 else ''})"

    result = {"unjudged": "scored as if nothing were relevant"}.get(conv.run_only,
                                                                    "not scored")
    if conv.qrels_only == "zero":
        result += ", and every judged query scores 0"
    return (f"no query of the run is judged in the qrels: the run has {some(in_run)}, "
            f"the qrels {some(in_qrels)}; ids are compared as text, so the run's queries are "
            f"{result} under the {conv.name} profile (the means are NaN where no query is "
            "scored); check that both files use the same query ids"
            + _numeric_twins(data, in_qrels, in_run))


def _check_gdeval(data, conv):
    """What gdeval.pl (ir_measures' provider of nDCG(dcg='exp-log2')@k) refuses: relevance above
    4 and query ids that are not digits after their last '-'."""
    if data.qv.size and data.qv.max() > 4:
        i = int(np.argmax(data.qv))
        raise ValueError(
            f"the relevance of document {data.dnames[data.qd[i]]!r} for query "
            f"{data.qnames[data.qq[i]]!r} is {data.qv[i]:g}; under the {conv.name} profile "
            "dcg='exp-log2' is computed by gdeval.pl, which refuses relevance above 4")
    for q in data.qnames:
        if not re.fullmatch(r"[0-9]+", str(q).rsplit("-", 1)[-1]):
            raise ValueError(
                f"query id {str(q)!r}: under the {conv.name} profile dcg='exp-log2' is computed "
                "by gdeval.pl, which reads only query ids that end in digits after their last '-'")


def evaluate_run(qrels, run, measures, convention="trec_eval", order=None,
                 ties=None) -> RunEvaluation:
    r"""Score a run against relevance judgements under the conventions of one tool.

    Parameters
    ----------
    qrels : dict, path or pandas.DataFrame
        ``{query: {document: relevance}}``, a TREC qrels file (4 columns) or a DataFrame with
        columns ``query_id, doc_id, relevance`` (see :mod:`rankbook.trec_format`).
    run : dict, path or pandas.DataFrame
        ``{query: {document: score}}``, a TREC run file (6 columns) or a DataFrame with columns
        ``query_id, doc_id, score``. Higher scores rank first. An explicit order is
        ``{query: [first document, second, ...]}`` (a dict of lists), or a file or DataFrame
        read with ``order="rank"``.
    measures : str or sequence of str
        ir_measures names, e.g. ``["nDCG@10", "AP", "P(rel=2)@5", "IPrec@0.1"]`` (module
        notes), or trec_eval's (``["ndcg_cut_10", "map", "bpref", "iprec_at_recall_0.10"]``,
        :data:`TREC_EVAL_NAMES`); one name per item (a string with commas is refused). Each is
        labelled in the result as written. Counts (``num_ret``, ``NumRel``, ...) are summed
        over queries and ``gm_map``/``gm_bpref`` averaged geometrically (:data:`AGGREGATION`).
    convention : str or Convention
        ``"trec_eval"`` (default), ``"pytrec_eval"``, ``"ir_measures"``, ``"ranx"``,
        ``"sklearn"``, ``"torchmetrics"``, or a :class:`Convention` from :func:`profile`.
        ``"trec_eval"`` is trec_eval 10.0, ``"trec_eval_9"`` trec_eval 9.0.8.
    order : {None, "score", "rank"}
        ``"score"`` (the default for dicts of scores, files and DataFrames): documents are
        ranked by score and ties broken by the profile's rule. ``"rank"`` (the default for a
        dict of lists): the run is an explicit order, scored as given under every profile, with
        no tie rule and no score quirk (single precision, torchmetrics' scores of 0 or less):
        the rank column of a TREC run file (its fourth), the ``rank`` column of a DataFrame or
        the values of a ``{query: {document: rank}}`` dict, rank 1 first. Two documents of a
        query with the same rank are refused.
    ties : {None, "range"}
        ``"range"``: also the lowest, highest and expected value over the orders of tied
        documents (:func:`rankbook.tie_range.tie_range_of`): returns a
        :class:`rankbook.tie_range.TieRange`, whose ``per_query`` and ``aggregate`` have the
        columns ``value`` (as without it), ``low``, ``high`` and ``expected``.

    Returns
    -------
    RunEvaluation
        ``per_query`` (tidy: ``query_id, measure, value``) and ``aggregate`` (Series by
        measure). The measures, with :math:`\mathrm{rel}_i` the relevance at rank :math:`i`,
        :math:`R` the relevant documents and :math:`[\cdot]` an indicator:

        .. math::

            P@k = \frac{1}{k}\sum_{i\le k}[\mathrm{rel}_i \ge l], \quad
            AP = \frac{1}{|R|}\sum_{i:\,\mathrm{rel}_i\ge l} P@i, \quad
            nDCG@k = \frac{\sum_{i\le k} \mathrm{rel}_i/\log_2(i+1)}{IDCG@k}

        (Järvelin and Kekäläinen {cite}`jarvelin2002cumulated`; trec_eval {cite}`trec_eval`);
        the profile decides everything around the formula (module notes).

    Raises
    ------
    ValueError
        A score or relevance that is not a finite number, a document twice in the run or the
        qrels, an unknown measure or one the profile does not offer (the message lists those it
        offers), a query in one input only where the profile refuses it (ranx), and inputs the
        peer refuses (scikit-learn: negative relevance or a single document for nDCG). Each
        message names the query and the document.

    Examples
    --------
    trec_eval breaks score ties by descending document id, so renaming a document changes the
    value (trec_eval issue 22); ranx keeps the input order among ties:

    >>> qrels = {"1": {"a": 0, "b": 1, "c": 0}}
    >>> run = {"1": {"b": 1.0, "c": 1.0}}
    >>> round(evaluate_run(qrels, run, "nDCG").aggregate["nDCG"], 4)
    0.6309
    >>> evaluate_run(qrels, run, "nDCG", convention="ranx").aggregate["nDCG"]
    1.0

    An explicit order is scored as given, whatever the profile (pytrec_eval issue 56: every
    score 1, pytrec_eval prints AP 1.0; the order d1, d2, d3 gives 1/3):

    >>> evaluate_run({"q1": {"d3": 1}}, {"q1": ["d1", "d2", "d3"]}, ["AP", "nDCG"],
    ...              "pytrec_eval").aggregate.round(4).to_dict()
    {'AP': 0.3333, 'nDCG': 0.5}

    trec_eval 10.0 compares scores in double precision; trec_eval 9 (and pytrec_eval) round
    them to single precision, where these two scores are equal, and break the tie by document
    id, descending:

    >>> near = {"1": {"a": 1.00000001, "b": 1.0}}
    >>> evaluate_run({"1": {"b": 1}}, near, "P@1").aggregate["P@1"]
    0.0
    >>> evaluate_run({"1": {"b": 1}}, near, "P@1", convention="trec_eval_9").aggregate["P@1"]
    1.0
    >>> res = evaluate_run(qrels, run, ["P@5", "AP"])
    >>> res.per_query
      query_id measure  value
    0        1     P@5    0.1
    1        1      AP    0.5
    """
    if ties is not None:
        return _with_tie_range(qrels, run, measures, convention, order, ties)
    return _evaluate(qrels, run, measures, profile(convention), order)[0]


def _evaluate(qrels, run, measures, conv, order):
    """evaluate_run's steps under profile ``conv``: the result, the loaded data (its join of
    two tables, which the tie range reuses) and the parsed measures."""
    names, parsed = _requested(measures, conv)
    data = _load(qrels, run, order, conv)
    _check_inputs(data, conv, parsed, qrels)
    chosen = _select_queries(data, conv)
    judgements = _judgements(data, chosen, conv, parsed)
    values = _score(data, chosen, judgements, conv, parsed)
    return _assemble(data, chosen, judgements, conv, parsed, names, values), data, parsed


def relstrings(qrels, run, convention="trec_eval", order=None, length: int = 10) -> dict:
    """trec_eval's ``relstring``: the relevance codes of each query's first ``length``
    documents as text, in the profile's order (:func:`rankbook.trec_measures.relstring`: the
    level 0 to 9, ``>`` above 9, ``-`` not in the qrels, ``.`` judged negative).

    Parameters
    ----------
    qrels, run, convention, order
        As in :func:`evaluate_run`.
    length : int
        Documents shown per query (trec_eval's ``-m relstring.N``; default 10).

    Returns
    -------
    dict
        Query id -> string, for the queries the profile scores (a judged query the run lacks,
        scored under ``-c``, has ``""``), in natural query order.

    Examples
    --------
    >>> relstrings({"1": {"a": 2, "b": 0, "z": -1}}, {"1": {"a": 3.0, "b": 2.0, "c": 1.0, "z": 0.0}})
    {'1': '20-.'}
    """
    if isinstance(length, bool) or not isinstance(length, (int, np.integer)) or length < 0:
        raise ValueError(f"length={length!r} must be a whole number >= 0")
    conv = profile(convention)
    if conv.averaging == "pooled":
        raise ValueError(f"relstring needs one ranking per query; the {conv.name} profile with "
                         "averaging='pooled' has one list")
    data = _load(qrels, run, order, conv)
    _check_inputs(data, conv, [], qrels)
    chosen = _select_queries(data, conv)
    m = Measure("relstring", "relstring", int(length), 1, False)
    judgements = _judgements(data, chosen, conv, [m])
    (values,) = _score(data, chosen, judgements, conv, [m])
    ids = np.concatenate([chosen.eval_ids, chosen.zero_rows]).astype(np.int64)
    texts = list(values) + [""] * chosen.zero_rows.size
    names = data.qnames[ids]
    return {str(names[i]): texts[i] for i in _query_sort_key(names)}


# ---- evaluate_run, step by step: measures, inputs, queries, judgements, scores, the result ----


def _requested(measures, conv: Convention):
    """The measure names as given and parsed; a repeated name is refused."""
    try:
        names = [measures] if isinstance(measures, str) else list(measures)
    except TypeError:
        raise ValueError(f"measures must be a measure name or a list of them, got "
                         f"{type(measures).__name__}; choose from {', '.join(conv.measures)}") from None
    if not names:
        raise ValueError(f"measures is empty; give at least one of {', '.join(conv.measures)}")
    parsed = [parse_measure(t, conv) for t in names]
    if len(set(names)) != len(names):
        dup = next(t for t in names if names.count(t) > 1)
        raise ValueError(f"measure {dup!r} is listed twice")
    return names, parsed


def _check_inputs(data: _Inputs, conv: Convention, parsed, qrels) -> None:
    """What the profile's peer refuses in the inputs as a whole: an explicit order pooled, a
    fractional level where levels are whole, what gdeval.pl refuses, empty qrels or run."""
    if data.explicit and conv.averaging == "pooled":
        raise ValueError(
            f"the {conv.name} profile with averaging='pooled' pools every query's documents into "
            "one list, which has no order when each query's order is given; score an explicit "
            "order with averaging='per_query'")
    qv = data.qv
    if conv.whole_labels and qv.size and not np.all(qv == np.round(qv)):
        i = int(np.flatnonzero(qv != np.round(qv))[0])
        where = f"{trec_format._source_name(qrels)}: " if trec_format._is_file(qrels) else ""
        raise ValueError(
            f"{where}the relevance of document {data.dnames[data.qd[i]]!r} for query "
            f"{data.qnames[data.qq[i]]!r} is {qv[i]!r}; the {conv.name} profile takes whole-number "
            f"relevance levels only: trec_eval reads a level with C's atol, which would silently "
            f"make {qv[i]!r} a {int(qv[i]) if abs(qv[i]) < 2**63 else qv[i]!r}, so it is refused "
            "here; round the levels yourself, or use the sklearn or torchmetrics profile for "
            "graded fractions"
        )
    if any((p.exp_gain or p.family == "ERR") for p in parsed) and conv.exp_dcg == "gdeval":
        _check_gdeval(data, conv)
    if not data.qq.size:
        raise ValueError("the qrels hold no judgements, so no query can be scored; give at least "
                         "one (query, document, relevance) line")
    if not data.rq.size:
        raise ValueError("the run holds no documents (no query, document and score), so there is "
                         "nothing to score; give at least one retrieved document (a run file's "
                         "lines, or {query: {document: score}})")


class _Chosen(NamedTuple):
    """Which queries are scored: ``eval_ids`` (codes of the scored queries, in code order),
    ``zero_rows`` (judged queries the run lacks that score 0), ``new_code`` (query code ->
    row among the scored, -1 elsewhere) and the run's rows of scored queries, relabelled."""

    eval_ids: np.ndarray
    zero_rows: np.ndarray
    new_code: np.ndarray
    rq: np.ndarray
    rd: np.ndarray
    rv: np.ndarray
    run_rel: np.ndarray | None


def _select_queries(data: _Inputs, conv: Convention) -> _Chosen:
    """The queries the profile scores, skips, scores 0 or refuses (judged but not run, run but
    not judged), with the messages of the refusals."""
    nq = len(data.qnames)
    in_qrels = np.zeros(nq, dtype=bool)
    in_qrels[data.qq] = True
    in_run = np.zeros(nq, dtype=bool)
    in_run[data.rq] = True
    only_q = np.flatnonzero(in_qrels & ~in_run)
    only_r = np.flatnonzero(in_run & ~in_qrels)
    if conv.qrels_only == "error" and only_q.size:
        if conv.name.startswith("trec_eval"):
            why = (f"as trec_eval 10.0 stops (exit status 4) without -c; "
                   f"profile({conv.name!r}, complete=True) scores such a query 0, as -c does")
        else:
            why = (f"as ranx.evaluate does; profile({conv.name!r}, make_comparable=True) scores "
                   "such a query 0, as make_comparable=True does")
        if not np.any(in_qrels & in_run):
            shown = ", ".join(repr(str(x)) for x in data.qnames[np.flatnonzero(in_run)][:3])
            why += (f"; no query of the run is judged at all (the run's are {shown}"
                    f"{', ...' if in_run.sum() > 3 else ''}): query ids are compared as text, "
                    "check that both inputs use the same ids")
        why += _numeric_twins(data, in_qrels, in_run)
        raise ValueError(
            f"query {data.qnames[only_q[0]]!r} is judged in the qrels but absent from the run "
            f"({_such_queries(only_q.size)}); the {conv.name} profile refuses it, {why}"
        )
    if conv.run_only == "error" and only_r.size:
        raise ValueError(
            f"query {data.qnames[only_r[0]]!r} is in the run but has no judgements in the qrels "
            f"({_such_queries(only_r.size)}); the {conv.name} profile refuses runs and qrels with "
            f"different queries, as ranx.evaluate does; profile({conv.name!r}, "
            "make_comparable=True) leaves such a query out, as make_comparable=True does"
        )
    if data.qq.size and data.rq.size and not np.any(in_qrels & in_run):
        warnings.warn(_no_match_message(data, in_qrels, in_run, conv), UserWarning, stacklevel=3)
    evaluated = in_run & (in_qrels | (conv.run_only == "unjudged"))
    zero_rows = only_q if conv.qrels_only == "zero" else np.zeros(0, dtype=np.int64)
    keep = evaluated[data.rq]
    everything = bool(keep.all())
    rq, rd, rv = (data.rq, data.rd, data.rv) if everything else (data.rq[keep], data.rd[keep], data.rv[keep])
    rrel = data.run_rel if data.run_rel is None or everything else data.run_rel[keep]
    eval_ids = np.flatnonzero(evaluated)
    new_code = np.full(nq, -1, dtype=np.int32 if nq < 2**31 else np.int64)
    new_code[eval_ids] = np.arange(eval_ids.size)
    return _Chosen(eval_ids, zero_rows, new_code, new_code[rq], rd, rv, rrel)


class _Judgements(NamedTuple):
    """The judgements of the scored queries: grouped rows (``qq`` row, ``qd`` document, ``qv``
    level), the relevant count per ``rel`` used, the ideal gains per ``rel`` (nDCG, DCG) and
    each query's levels, NaN-padded (the families of :mod:`rankbook.trec_measures`)."""

    qq: np.ndarray
    qd: np.ndarray
    qv: np.ndarray
    num_rel: dict
    ideal: dict
    levels: np.ndarray | None


def _judgements(data: _Inputs, chosen: _Chosen, conv: Convention, parsed) -> _Judgements:
    """The qrels of the scored queries, grouped per query (a document judged twice is
    refused), and what each measure needs of them."""
    m_q = chosen.eval_ids.size
    qkeep = chosen.new_code[data.qq] >= 0
    qq, qd, qv = chosen.new_code[data.qq[qkeep]], data.qd[qkeep], data.qv[qkeep]
    qgroups = _Groups(qq, m_q)
    qvalid = qgroups.valid()
    dup = (None if data.run_rel is not None  # read as dicts or joined files: no repeat possible
           else _first_duplicate(qgroups.pad(qd, -1, dtype=np.int64), qvalid))
    if dup is not None:
        raise _duplicate_error("qrels", data.qnames[chosen.eval_ids[dup[0]]], data.dnames[dup[1]])
    rels = sorted({p.rel for p in parsed})
    num_rel, ideal, levels = {}, {}, None
    if conv.judgments == "all" and m_q:
        for r in rels:
            num_rel[r] = np.bincount(qq, weights=(qv >= r).astype(float), minlength=m_q)
        if any(p.family in ("nDCG", "DCG") for p in parsed):
            lab_q = np.where(qvalid, qgroups.pad(qv, 0.0), 0.0)
            for r in rels:
                if conv.negative_labels == "below_rel":
                    g = np.where(lab_q >= r, lab_q, 0.0)
                else:
                    g = np.where(lab_q > 0, lab_q, 0.0)
                ideal[r] = -np.sort(-g, axis=1)
        if any(p.family in _TREC_CODE_FAMILIES or p.family == "relstring" for p in parsed):
            levels = np.where(qvalid, qgroups.pad(qv, np.nan), np.nan)
    return _Judgements(qq, qd, qv, num_rel, ideal, levels)


def _score(data: _Inputs, chosen: _Chosen, judgements: _Judgements, conv: Convention,
           parsed) -> list:
    """Each measure's value for every scored query (one array per measure, queries in code
    order). The run is grouped per query, in input order, then scored a block of queries at a
    time: the padded matrices of one block stay small whatever the size of the run, and a
    signal is answered between blocks. Every block is padded to the widest query of the whole
    run, so each row is computed exactly as it would be in one batch."""
    rq, rd, rv, rrel = chosen.rq, chosen.rd, chosen.rv, chosen.run_rel
    eval_ids = chosen.eval_ids
    m_q = eval_ids.size
    rows_are_codes = data.run_rel is not None  # no document twice in a query: nothing to check
    qq, qd, qv = judgements.qq, judgements.qd, judgements.qv
    groups = _Groups(rq, m_q)
    counts = groups.counts
    width = groups.width
    pooled = conv.averaging == "pooled"
    nd = np.int64(max(len(data.dnames), 1))
    qkey = qq.astype(np.int64) * nd + qd
    qindex = pd.Index(qkey) if qkey.size and rrel is None else None
    seen = None
    if qindex is not None and nd <= 2**27:  # only documents judged for some query can be judged here
        seen = np.zeros(int(nd) + 1, dtype=bool)
        seen[qd] = True
    starts = np.concatenate([[0], np.cumsum(counts)])
    if pooled:
        blocks = [(0, m_q)]
    else:
        step = max(1, SCORE_BLOCK_CELLS // max(width, 1))
        blocks = [(a, min(a + step, m_q)) for a in range(0, m_q, step)]
    found = {}  # problem -> message, first block where each appears (the whole run's first)
    parts = [[] for _ in parsed]
    # measures that see of a document only its gain (a positive level), or whether it reaches
    # rel: the order among tied documents of equal gain changes none of them
    gains_only = (conv.negative_labels != "gain" and conv.max_documents is None
                  and not conv.judged_only and not any(p.family in _SEES_JUDGEMENTS for p in parsed))
    rules = {conv.ties, *(r for _, r in conv.ties_by_measure)}
    scores_needed = (not conv.nonpositive_scores_relevant or bool(rules & {"average", "threshold"}))
    for a, b in blocks:
        rows_ = (slice(int(starts[a]), int(starts[b])) if groups.order is None
                 else groups.order[int(starts[a]):int(starts[b])])
        block = _Groups(rq[rows_] - a, b - a, width=width)
        doc_m = block.pad(rd[rows_], -1, dtype=np.int64)
        dup = None if rows_are_codes else _first_duplicate(
            doc_m, block.valid() if not block.full else np.ones(doc_m.shape, bool))
        if dup is not None:  # the first check of all: no earlier block had one
            raise _duplicate_error("run", data.qnames[eval_ids[a + dup[0]]], data.dnames[dup[1]])
        score_m = block.pad(rv[rows_], -np.inf)
        if data.explicit:  # ranks: distinct within a query, then negated so that rank 1 is first
            rank_m = block.pad(rv[rows_], np.inf)
            srt = np.sort(rank_m, axis=1)
            same = (srt[:, 1:] == srt[:, :-1]) & np.isfinite(srt[:, 1:])
            if same.any() and "ranks" not in found:
                r, c = np.argwhere(same)[0]
                docs = data.dnames[doc_m[r][rank_m[r] == srt[r, c]]]
                found["ranks"] = (
                    f"documents {str(docs[0])!r} and {str(docs[1])!r} of query "
                    f"{data.qnames[eval_ids[a + r]]!r} share rank {srt[r, c]:g}; an explicit "
                    "order needs distinct ranks (order='score' ranks by score and breaks ties "
                    "by the profile's rule)")
            score_m = np.where(np.isfinite(rank_m), -rank_m, -np.inf)
            del rank_m, srt, same

        # relevance of every retrieved document (0 and not judged if absent from the qrels)
        if rrel is not None:  # joined as the inputs were read
            rel_m = block.pad(rrel[rows_], np.nan)
            judged_m = ~np.isnan(rel_m)
            label_m = np.where(judged_m, rel_m, 0.0)
            del rel_m
        else:
            judged_m, label_m = _join_labels(doc_m, a, qindex, seen, nd, qv)

        if (conv.nonnegative_ndcg_labels and any(p.family == "nDCG" for p in parsed)
                and "negative" not in found and np.any(label_m < 0)):
            r, c = np.argwhere(label_m < 0)[0]
            found["negative"] = (
                f"document {data.dnames[doc_m[r, c]]!r} of query "
                f"{data.qnames[eval_ids[a + r]]!r} has relevance {label_m[r, c]:g}; the "
                f"{conv.name} profile refuses negative relevance for nDCG, as "
                "sklearn.metrics.ndcg_score does")
        if found:  # a problem to report: the later blocks are only checked
            continue

        n_block = block.counts
        if pooled:
            flat = (doc_m >= 0).ravel()
            score_m, label_m = score_m.ravel()[flat][None, :], label_m.ravel()[flat][None, :]
            judged_m, doc_m = judged_m.ravel()[flat][None, :], doc_m.ravel()[flat][None, :]
            n_block = np.array([score_m.shape[1]], dtype=np.int64)
        batch = _Batch(score_m, label_m, judged_m, doc_m, n_block.astype(np.int64),
                       data.dnames, explicit=data.explicit, max_documents=conv.max_documents,
                       judged_only=conv.judged_only, gains_only=gains_only,
                       scores_needed=scores_needed)
        label_sum = label_m.sum(axis=1)
        if pooled:
            nr, idl, lv = judgements.num_rel, judgements.ideal, judgements.levels
        else:
            nr = {r: v[a:b] for r, v in judgements.num_rel.items()}
            idl = {r: v[a:b] for r, v in judgements.ideal.items()}
            lv = None if judgements.levels is None else judgements.levels[a:b]
        for j, p in enumerate(parsed):
            parts[j].append(_values(p, conv, batch, nr, idl, label_sum, lv))
        del batch, score_m, label_m, judged_m, doc_m
    for problem in ("ranks", "negative"):
        if problem in found:
            raise ValueError(found[problem])

    if conv.min_documents_dcg > 1 and any(p.family in ("nDCG", "DCG") for p in parsed):
        n_scored = np.array([len(rq)], dtype=np.int64) if pooled else counts
        short = np.flatnonzero(n_scored < conv.min_documents_dcg)
        if short.size:
            qname = data.qnames[eval_ids[short[0]]] if conv.averaging == "per_query" else "(pooled)"
            raise ValueError(
                f"query {qname!r} has {int(n_scored[short[0]])} scored document(s); the {conv.name} "
                f"profile needs at least {conv.min_documents_dcg} for (n)DCG, as "
                "sklearn.metrics.ndcg_score refuses a single document"
            )
    return [np.concatenate(ps) if ps else np.zeros(0) for ps in parts]


def _zero_row_values(data: _Inputs, chosen: _Chosen, conv: Convention, m: Measure) -> np.ndarray:
    """The value of a judged query the run lacks, where the profile scores it (``qrels_only=
    "zero"``): 0, except under trec_eval's -c, which scores a one-document run of an unjudged
    document: ``num_rel`` is the query's relevant count and ``num_q`` counts it."""
    zero = np.zeros(chosen.zero_rows.size)
    if not conv.name.startswith("trec_eval") or not chosen.zero_rows.size:
        return zero
    if m.family == "NumQ":
        return zero + 1.0
    if m.family == "NumRel":
        mask = np.zeros(len(data.qnames), dtype=bool)
        mask[chosen.zero_rows] = True
        inq = mask[data.qq]
        count = np.bincount(data.qq[inq], weights=(data.qv[inq] >= m.rel).astype(float),
                            minlength=len(data.qnames))
        return count[chosen.zero_rows]
    return zero


def _aggregate(parsed, mat: np.ndarray) -> np.ndarray:
    """The value over queries of each measure (a column of ``mat``; :data:`AGGREGATION`):
    mean, sum or geometric mean; NaN when no query is scored."""
    if not mat.shape[0]:
        return np.full(len(parsed), np.nan)
    out = mat.mean(axis=0)
    for j, p in enumerate(parsed):
        kind = AGGREGATION.get(p.family, "mean")
        if kind == "sum":
            out[j] = mat[:, j].sum()
        elif kind == "gmean":
            out[j] = np.exp(np.mean(np.log(np.maximum(mat[:, j], MIN_GEO_MEAN))))
    return out


def _assemble(data: _Inputs, chosen: _Chosen, judgements: _Judgements, conv: Convention,
              parsed, names, values) -> RunEvaluation:
    """The tidy per-query table (queries in natural order) and the value over queries."""
    if conv.averaging == "pooled":
        agg = pd.Series([float(v[0]) if v.size else float("nan") for v in values], index=names, dtype=float)
        per = pd.DataFrame({"query_id": pd.Series(["(pooled)"] * len(names), dtype=object),
                            "measure": names, "value": agg.to_numpy()})
        return RunEvaluation(per, agg)
    m_q = chosen.eval_ids.size
    all_ids = np.concatenate([chosen.eval_ids, chosen.zero_rows]).astype(np.int64)
    mat = np.zeros((all_ids.size, len(parsed)))
    for j, (v, p) in enumerate(zip(values, parsed)):
        mat[: m_q, j] = v
        mat[m_q:, j] = _zero_row_values(data, chosen, conv, p)
    qnames = data.qnames[all_ids]
    srt = _query_sort_key(qnames)
    qnames, mat = qnames[srt], mat[srt]
    per = pd.DataFrame({
        "query_id": np.repeat(qnames, len(parsed)).astype(object),
        "measure": np.tile(np.array(names, dtype=object), qnames.size),
        "value": mat.ravel(),
    })
    agg = pd.Series(_aggregate(parsed, mat), index=names, dtype=float)
    agg.index.name = "measure"
    return RunEvaluation(per, agg)


def _with_tie_range(qrels, run, measures, convention, order, ties, expected=True):
    """``evaluate_run(..., ties="range")``: the evaluation, then :mod:`rankbook.tie_range`
    (``expected=False``: the extremes only, the ``expected`` column NaN)."""
    from . import tie_range as _tr

    if ties != "range":
        raise ValueError(f"ties={ties!r} is not valid; choose None (the profile's own tie "
                         "rule) or 'range' (also the lowest, highest and expected value over "
                         "the orders of tied documents)")
    conv = profile(convention)
    _tr.check_range([parse_measure(t, conv) for t in ([measures] if isinstance(measures, str)
                                                      else list(measures))],
                    conv)  # before any input is read
    qrels, run = _tr.read_once(qrels, run, order)
    # a file is read once, for the scores and the range alike; two tables are joined once
    # more here (by hashes, as evaluate_run does), so the range needs no text of the ids
    qt, rt = _as_table(qrels, "qrels"), _as_table(run, "run", order)
    qrels = qrels if qt is None else qt
    run = run if rt is None else rt
    # evaluate_run's steps, keeping its join of two tables for the range
    res, data, parsed = _evaluate(qrels, run, measures, conv, order)
    joined = data if (qt is not None and rt is not None and rt.what == "run"
                      and order != "rank" and data.run_rel is not None
                      and not data.explicit) else None
    return _tr.tie_range_of(res, qrels, run, parsed, conv, order, joined=joined,
                            expected=expected)


# --------------------------------------------------------------------------------------------
# every profile side by side


#: Two variants the atlas shows beside the seven profiles: ranx given plain dicts (ascending
#: numba sort reversed, so tied documents come in reverse input order) and torchmetrics'
#: functional call on 2-D input (every query pooled into one list, torchmetrics issue 3216).
VARIANTS = {
    "ranx (plain dicts)": ("ranx", {"ties": "numba_quicksort_reversed"}),
    "torchmetrics (2-D functional)": ("torchmetrics", {"averaging": "pooled"}),
}


def compare_conventions(qrels, run, measures, conventions=None, order=None) -> pd.DataFrame:
    """Every profile's value for the same qrels, run and measures, side by side.

    Parameters
    ----------
    qrels, run, measures
        As in :func:`evaluate_run`.
    conventions : sequence of str, optional
        Profile names and names of :data:`VARIANTS`; default: the seven profiles, then the
        variants.
    order : {None, "score", "rank"}
        As in :func:`evaluate_run`: ``"rank"`` scores an explicit order under every profile.

    Returns
    -------
    pandas.DataFrame
        Columns ``convention``, ``measure``, ``query_id`` (``"all"`` for the mean), ``value``
        and ``status``: ``"ok"``, ``"not offered"`` (the tool has no such measure) or
        ``"refused: ..."`` (the tool refuses the input; the reason follows).

    Examples
    --------
    >>> t = compare_conventions({"1": {"a": 1}}, {"1": {"a": 1.0, "b": 1.0}}, ["RR"],
    ...                         ["trec_eval", "ranx", "ranx (plain dicts)"])
    >>> t[t.query_id == "all"][["convention", "value"]].to_dict("records")
    [{'convention': 'trec_eval', 'value': 0.5}, {'convention': 'ranx', 'value': 1.0}, {'convention': 'ranx (plain dicts)', 'value': 0.5}]
    """
    names = list(conventions) if conventions is not None else [*CONVENTIONS, *VARIANTS]
    measures = [measures] if isinstance(measures, str) else list(measures)
    _check_order(order)
    # a file is read once (a pipe can be read only once), then scored under every profile
    tables = (_as_table(qrels, "qrels"), _as_table(run, "run", order))
    qrels = qrels if tables[0] is None else tables[0]
    run = run if tables[1] is None else tables[1]
    rows = []
    for name in names:
        if name in VARIANTS:
            base, changes = VARIANTS[name]
            conv = profile(base, **changes)
        else:
            conv = profile(name)
        for m in measures:
            try:
                parse_measure(m, conv)
            except ValueError:
                rows.append((name, m, "all", float("nan"), "not offered"))
                continue
            try:
                res = evaluate_run(qrels, run, [m], conv, order=order)
            except ValueError as exc:
                rows.append((name, m, "all", float("nan"), f"refused: {exc}"))
                continue
            rows.append((name, m, "all", float(res.aggregate[m]), "ok"))
            if conv.averaging == "per_query":
                for q, v in zip(res.per_query["query_id"], res.per_query["value"]):
                    rows.append((name, m, q, float(v), "ok"))
    return pd.DataFrame(rows, columns=["convention", "measure", "query_id", "value", "status"])


# --------------------------------------------------------------------------------------------
# documentation table


_SETTINGS = (
    ("peer", "tool and version"),
    ("ties", "order of tied scores"),
    ("negative_labels", "negative relevance"),
    ("judgments", "relevant documents not retrieved"),
    ("no_relevant", "query without relevant documents"),
    ("qrels_only", "query judged but not in the run"),
    ("run_only", "query in the run but not judged"),
    ("k_beyond_list", "P@k with k longer than the list"),
    ("gain", "gain and discount"),
    ("averaging", "averaging"),
    ("repeated_calls", "one evaluator scoring several runs"),
)

#: What happens when one evaluator object scores several runs, by profile (pytrec_eval issues
#: 22, 38 and 57: the original pytrec_eval 0.5 loses measures cut at several depths, or returns
#: wrong values, from its second call on; pytrec-eval-terrier fixed it).
REPEATED_CALLS = {
    "trec_eval": "a new process per run: nothing carries over",
    "trec_eval_9": "a new process per run: nothing carries over",
    "pytrec_eval": ("equal results (pytrec-eval-terrier); the original pytrec_eval 0.5 drops "
                    "all but one depth of a measure cut at several from the second evaluate() "
                    "on, and can return wrong values (cvangysel/pytrec_eval issues 22, 38, 57)"),
    "ir_measures": ("equal results with pytrec-eval-terrier >= 0.5.4; with the original "
                    "pytrec_eval 0.5 the bug above (ir_measures issues 42, 49)"),
    "ranx": "no evaluator object: each evaluate() call starts afresh",
    "sklearn": "functions without state",
    "torchmetrics": ("functional calls hold no state; a RetrievalMetric object pools every "
                     "update() until reset()"),
}


def _describe(conv: Convention, setting: str) -> str:
    if setting == "peer":
        return conv.peer
    if setting == "explicit_order":
        return "scored as given (no tie rule)"
    if setting == "ties":
        single = " (scores compared in single precision)" if conv.score_dtype == "float32" else ""
        text = {"docno_desc": "document id, descending", "docno_asc": "document id, ascending",
                "input_order": "input order", "numba_quicksort": "numba quicksort (input order up to 15 documents)",
                "numba_quicksort_twice": "numba quicksort, twice (make_comparable re-sorts the run)",
                "numba_quicksort_reversed": "numba quicksort of the scores, reversed",
                "average": "averaged over the tied group", "threshold": "one threshold per tied group"}
        out = text[conv.ties]
        if conv.ties_by_measure:
            groups = {}
            for form, rule in conv.ties_by_measure:
                groups.setdefault(rule, []).append(form)
            out += "; " + "; ".join(f"{', '.join(forms)}: {text[r]}" for r, forms in groups.items())
        return out + single
    if setting == "negative_labels":
        return {"unjudged": "never relevant, no gain", "below_rel": "below rel: never relevant, no gain",
                "gain": "refused by nDCG" if conv.nonnegative_ndcg_labels else "a negative gain in nDCG; "
                        "binary measures use relevance >= rel"}[conv.negative_labels]
    if setting == "judgments":
        return {"all": "count (recall, AP, ideal DCG)", "retrieved": "invisible: only scored documents exist"}[conv.judgments]
    if setting == "no_relevant":
        return "0, counted" + ("; LRAP 1" if "LRAP" in conv.measures else "")
    if setting == "qrels_only":
        text = {"skip": "skipped", "zero": "scores 0, counted", "error": "error"}[conv.qrels_only]
        for opt, (peer_name, fields) in PEER_OPTIONS.get(conv.name, {}).items():
            if fields.get("qrels_only") not in (None, conv.qrels_only):
                text += f"; {peer_name} ({opt}=True): 0, counted"
        return text
    if setting == "run_only":
        return {"skip": "skipped", "unjudged": "scored with every label 0", "error": "error"}[conv.run_only]
    if setting == "k_beyond_list":
        if "P@k" not in conv.measures:
            return "no P@k"
        return "divide by k" + ("; Judged@k by the list length" if conv.judged_cut_divisor == "list"
                                and "Judged@k" in conv.measures else "")
    if setting == "gain":
        extra = {"any": " or 2^rel - 1 (dcg='exp-log2')",
                 "gdeval": " or 2^rel - 1 for nDCG(dcg='exp-log2')@k (gdeval, 5 decimals)"}
        return "relevance" + extra.get(conv.exp_dcg, "") + ", log2(rank + 1)"
    if setting == "averaging":
        return {"per_query": "mean over queries", "pooled": "one pooled list"}[conv.averaging]
    if setting == "repeated_calls":
        return REPEATED_CALLS.get(conv.name, "")
    raise AssertionError(setting)


def conventions_table(with_sources: bool = True) -> pd.DataFrame:
    """The choices of every profile, one row per setting, with the peer's source for each.

    Returns a DataFrame with columns ``setting`` and one per profile; with ``with_sources``
    each cell also names where the peer makes the choice.

    Parameters
    ----------
    with_sources : bool
        Name each peer's source in the cells.

    Returns
    -------
    pandas.DataFrame
        Columns ``setting`` and one per profile.

    Examples
    --------
    >>> t = conventions_table(with_sources=False).set_index("setting")
    >>> t.loc["order of tied scores", "trec_eval"]
    'document id, descending'
    >>> t.loc["order of tied scores", "trec_eval_9"]
    'document id, descending (scores compared in single precision)'
    >>> t.loc["tool and version", "trec_eval"]
    'trec_eval 10.0 (usnistgov/trec_eval, tag v10.0)'
    """
    rows = []
    for key, label in _SETTINGS:
        row = {"setting": label}
        for name, conv in CONVENTIONS.items():
            text = _describe(conv, key)
            if with_sources:
                src = dict(conv.sources).get(key)
                if src:
                    text += f" ({src})"
            row[name] = text
        rows.append(row)
    return pd.DataFrame(rows)
