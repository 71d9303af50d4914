"""Code that exists only to reproduce one source.

The measures users import live one level up (``rankbook.metrics``, ``rankbook.consensus``,
``rankbook.ir``, ...); the book machinery lives in :mod:`rankbook.book`. Each subpackage here
holds the computation and the grading behind one source's claims, as the claims ledger
(``data/claims/``) names them:

* :mod:`rankbook.papers.paper_a`: paper A, ranking metrics on the symmetric group;
* :mod:`rankbook.papers.paper_b`: paper B, the consensus measure of rankings;
* :mod:`rankbook.papers.scoring`: the ranking-metrics notes, the rankDCG poster and the
  learning-to-rank note;
* :mod:`rankbook.papers.tools`: the IR evaluation tools' issue reports (the conventions atlas).

A notebook calls one function here per section and shows what it returns.
"""
