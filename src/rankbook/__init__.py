"""rankbook: how rankings are evaluated and compared, reproduced.

The library modules need only numpy, scipy and pandas: :mod:`rankbook.permutations`,
:mod:`~rankbook.metrics`, :mod:`~rankbook.agreement`, :mod:`~rankbook.properties`,
:mod:`~rankbook.equivalence`, :mod:`~rankbook.consensus`, :mod:`~rankbook.ir`,
:mod:`~rankbook.rbo`, :mod:`~rankbook.rankdcg`, :mod:`~rankbook.transpositions`. :mod:`rankbook.book` holds the machinery of the companion book
(``pip install "rankbook[book]"``).
"""

#: The package version, the one source of ``pip show rankbook`` and ``rankbook --version``.
__version__ = "0.2.0"
