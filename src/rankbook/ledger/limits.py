"""The budget a page's parameters are checked against, together, before any kernel starts.

A notebook declares each parameter's own limits in its metadata (``rankbook.constraints``); some
limits hold only for a combination: the memory a random search needs grows with the sample size
*times* the ranking length; an index must point into the rankings of an input file. A notebook
names its combined check in its metadata (``"check": "rankbook.papers.<source>.<page>:limits"``),
a function ``limits(values, root, timeout)`` of its page's module; ``rankbook run``, ``build`` and
``sweep`` call it with every parameter's value (defaults filled in), the project root and the
notebook's time limit per cell, before any kernel starts, and ``rankbook list NAME`` shows its
first line. Each raises ``ValueError`` naming the parameters, the values and what would be
allowed, through :func:`within_memory` and :func:`within_time`.

The estimates are deliberately on the safe side: they count every array the computation holds at
once, and times measured on one core of the machine the book is built on, with a margin
(``benchmarks/`` measures the real speed).
"""

from __future__ import annotations

#: Memory, in bytes, one run may plan to hold at once. The machines the book targets have 8 GB
#: or more; a run that would need more is refused before it starts instead of being killed by
#: the operating system half-way.
MEMORY_BUDGET = 4 * 2**30


def gib(nbytes: float) -> str:
    """Bytes in GiB, one decimal.

    Examples
    --------
    >>> gib(3 * 2**30)
    '3.0 GiB'
    """
    return f"{nbytes / 2**30:.1f} GiB"


def within_memory(need: float, what: str, advice: str) -> None:
    """ValueError when ``need`` bytes exceed :data:`MEMORY_BUDGET`, naming ``what`` needs them
    and the ``advice`` (which parameters to lower).

    Examples
    --------
    >>> within_memory(2**20, "a small sample", "lower n")
    >>> within_memory(8 * 2**30, "a sample of 10^9 rankings", "lower n_pairs")
    Traceback (most recent call last):
    ...
    ValueError: a sample of 10^9 rankings needs about 8.0 GiB of memory, more than the 4.0 GiB a run may use; lower n_pairs
    """
    if need > MEMORY_BUDGET:
        raise ValueError(f"{what} needs about {gib(need)} of memory, more than the "
                         f"{gib(MEMORY_BUDGET)} a run may use; {advice}")


def within_time(seconds: float, limit: float, what: str, advice: str) -> None:
    """ValueError when ``seconds`` exceed the notebook's time limit per cell ``limit``.

    Examples
    --------
    >>> within_time(3000, 1200, "the grid", "give fewer values")
    Traceback (most recent call last):
    ...
    ValueError: the grid takes about 50 min, more than the 20 min a cell may run (the notebook's time limit); give fewer values
    """
    if seconds > limit:
        raise ValueError(f"{what} takes about {seconds / 60:.0f} min, more than the "
                         f"{limit / 60:.0f} min a cell may run (the notebook's time limit); "
                         f"{advice}")
