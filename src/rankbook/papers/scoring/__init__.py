"""The ranking-metrics notes, the rankDCG poster and the learning-to-rank note.

Code that exists only to reproduce these three sources (ledgers ``data/claims/notes.toml``,
``rankdcg.toml`` and ``blog.toml``), one module per page:

* :mod:`rankbook.papers.scoring.tour`: the IR measures on one toy query and the statements of
  the notes and of the learning-to-rank note (``notebooks/ir_metrics_tour.ipynb``);
* :mod:`rankbook.papers.scoring.rbo`: the notes' section on rank-biased overlap
  (``notebooks/rbo_bounds.ipynb``);
* :mod:`rankbook.papers.scoring.rankdcg`: the rankDCG poster's tables
  (``notebooks/rankdcg_table.ipynb``).

Each ``check_*`` function returns the :class:`rankbook.ledger.claims.Evidence` of one ledger
claim; each module's ``CHECKS`` registers how the mutation test perturbs it.
"""
