"""The ledger entry a check of paper A grades, found by its function (no id written here).

Each check function of :mod:`rankbook.papers.paper_a` receives its claim's ledger entry; the
pages pass it through :func:`rankbook.ledger.claims.check` by id. Examples and tests that call a
check directly find its entry with :func:`checked_by`.
"""

from __future__ import annotations

from rankbook.ledger import claims


def checked_by(function) -> claims.Claim:
    """The one ledger claim whose ``check`` names ``function`` (``module:function``).

    Parameters
    ----------
    function : callable
        A check function of a paper module.

    Returns
    -------
    rankbook.ledger.claims.Claim
        Its ledger entry. ValueError when no claim, or more than one, names it.

    Examples
    --------
    >>> from rankbook.papers.paper_a import lemma63
    >>> checked_by(lemma63.check_lemma_6_3).kind
    'lemma'
    """
    spec = f"{function.__module__}:{function.__name__}"
    found = [c for c in claims.ledger().claims.values() if c.check == spec]
    if len(found) != 1:
        raise ValueError(f"{len(found)} ledger claims name the check {spec}; give exactly one "
                         "in the claims ledger")
    return found[0]
