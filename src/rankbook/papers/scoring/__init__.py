"""The ranking-metrics notes, the rankDCG poster and the learning-to-rank note.

Code that exists only to reproduce these three sources (ledgers ``data/claims/notes.toml``,
``rankdcg.toml`` and ``blog.toml``), one module per page:

* :mod:`rankbook.papers.scoring.tour`: the IR measures on one toy query and the statements of
  the notes and of the learning-to-rank note (``notebooks/ir_metrics_tour.ipynb``);
* :mod:`rankbook.papers.scoring.rbo`: the notes' section on rank-biased overlap
  (``notebooks/rbo_bounds.ipynb``);
* :mod:`rankbook.papers.scoring.rankdcg`: the rankDCG poster's tables
  (``notebooks/rankdcg_table.ipynb``).

Each ``check_*`` function receives one ledger claim (its numbers in ``claim.params``, its data
by role, its errata by role) and returns its :class:`rankbook.ledger.claims.Evidence`; the
ledger's ``[claims.test]`` says how the mutation test perturbs it, through the functions of the
check's module that its mutants name.
"""
