"""What the paper code needs from the project and nothing more: the claims ledger, display
names, data paths, and fetching other authors' data files.

The order of the layers is measures <- ledger <- papers <- book: this package imports only the
measures and the standard library (pooch, for downloads, only when a download is needed), and
never :mod:`rankbook.papers` or :mod:`rankbook.book`.

* :mod:`rankbook.ledger.fetch`: files of a source that rankbook does not commit (no licence to
  redistribute them), found in a mirror folder or downloaded by URL and SHA-256 into a cache, as
  ``data/fetch/<source>.toml`` lists them.
"""
