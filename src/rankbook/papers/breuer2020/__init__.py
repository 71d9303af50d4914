"""Breuer et al., SIGIR 2020, "How to Measure the Reproducibility of System-oriented IR
Experiments": the online appendix, recomputed from the authors' per-topic scores
{cite}`breuer2020repro`.

* :mod:`~rankbook.papers.breuer2020.data`: the authors' CSV files (fetched, never committed) as
  frames, and the appendix's run names against the files' constellation numbers;
* :mod:`~rankbook.papers.breuer2020.printed`: how the appendix shortened its numbers, and the
  grading of a printed cell against a recomputed value;
* :mod:`~rankbook.papers.breuer2020.tables`: every cell of appendix Tables 1-3 recomputed with
  rankbook's measures and tests, and the checks of those tables;
* :mod:`~rankbook.papers.breuer2020.figures`: Figures 1-3 redrawn, and what the published
  figures show checked against the recomputed points;
* :mod:`~rankbook.papers.breuer2020.kendall`: what kind of Kendall's τ the authors' files hold;
* :mod:`~rankbook.papers.breuer2020.repro_eval_example`: repro_eval's published example values
  against the appendix data.

The checks take a ledger claim (``claim.params``, ``claim.path(role)``, ``claim.evidence``,
``claim.finding``): no claim id, erratum id, threshold or project data path is written here.
"""
