"""The claims ledger and what the reproduction of a source needs from the book.

The layer between the measures users import (``rankbook.metrics``, ``rankbook.ir``, ...) and
the code that reproduces one source (``rankbook.papers``); the book machinery
(``rankbook.book``) sits on top of both:

    measures  <-  ledger  <-  papers  <-  book

- :mod:`~rankbook.ledger.claims`: the ledger (``data/claims/<source>.toml``: each source's
  ``[source]`` table, its claims and errata), the evidence a check returns, the one status rule,
  and :func:`~rankbook.ledger.claims.check`, the entry point that runs a claim's check with the
  numbers, data files and readings its ledger entry gives;
- :mod:`~rankbook.ledger.names`: display names (the words a reader knows for the code's ids);
- :mod:`~rankbook.ledger.paths`: where the project's data lives and where a notebook writes;
- :mod:`~rankbook.ledger.fetch`: other authors' data, fetched by URL and SHA-256 (or read from
  a mirror folder) as a source's registry in ``data/fetch/`` says;
- :mod:`~rankbook.ledger.limits`: the memory and time budget a page's parameters are checked
  against before any kernel starts.

Nothing here names a source or a page: everything about a source comes from its ledger file.
"""
