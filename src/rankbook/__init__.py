"""rankbook: how rankings are evaluated and compared, reproduced.

The library modules need only numpy, scipy and pandas: :mod:`rankbook.permutations`,
:mod:`~rankbook.metrics`, :mod:`~rankbook.pairwise`, :mod:`~rankbook.agreement`,
:mod:`~rankbook.clustering`, :mod:`~rankbook.properties`, :mod:`~rankbook.equivalence`,
:mod:`~rankbook.consensus`, :mod:`~rankbook.ir`, :mod:`~rankbook.rbo`,
:mod:`~rankbook.rankdcg`. :mod:`rankbook.book` holds the
machinery of the companion book (``pip install "rankbook[book]"``).

``rankbook.pairwise(rankings, metric)`` and ``rankbook.pairwise_to(rankings, reference,
metric)`` compute distance matrices (:mod:`rankbook.pairwise`; the module itself is callable
as its function, so ``rankbook.pairwise.SYMMETRIC`` works too). They are imported on first use,
so ``import rankbook`` stays light (the command line starts without numpy).
"""

#: The package version, the one source of ``pip show rankbook`` and ``rankbook --version``.
__version__ = "0.2.0"

__all__ = ["pairwise", "pairwise_to", "__version__"]


def __getattr__(name):
    if name in ("pairwise", "pairwise_to"):
        import importlib

        # import_module, not "from . import pairwise": the latter asks this package for the
        # attribute first and would land here again; importing binds rankbook.pairwise
        module = importlib.import_module(f"{__name__}.pairwise")
        return module if name == "pairwise" else module.pairwise_to
    if name in _SUBMODULES:  # rankbook.metrics without "import rankbook.metrics" first
        import importlib

        return importlib.import_module(f"{__name__}.{name}")
    raise AttributeError(f"module 'rankbook' has no attribute {name!r}")


#: The modules users import, loaded on first attribute access.
_SUBMODULES = ("permutations", "metrics", "agreement", "clustering", "properties",
               "equivalence", "consensus", "ir", "rbo", "rankdcg", "stats",
               "conventions", "repro", "trec_format", "ties", "tied_metrics", "concordance",
               "cutoffs", "profile", "robustness", "aggregation_formats", "plotting")
