"""The machinery that executes the notebooks and renders the book; not needed to use the metrics.

- :mod:`~rankbook.book.specs`: the notebooks, their parameters and command-line values;
- :mod:`~rankbook.book.pipeline`: papermill execution, the cache and jupyter-book;
- :mod:`~rankbook.book.outputs`: how a notebook saves and shows tables, figures and records;
- :mod:`~rankbook.book.site`: the pages generated from those records;
- :mod:`~rankbook.ledger.paths`: where data is read and outputs are written;
- :mod:`~rankbook.book.cli`: the ``rankbook`` command.

These modules need the ``book`` extra (``pip install "rankbook[book]"``): papermill,
jupyter-book, matplotlib and the rest. The library modules (``rankbook.metrics``,
``rankbook.consensus``, ...) import none of them.
"""
