"""The checks of arguments that every measure shares (private): one wording for one problem.

Each public function of the measures checks its arguments once, on entry, with the functions
below, and hands the checked values to kernels that trust them. The spirit is scikit-learn's
``validate_params``: a check says which argument is wrong, what it holds and what is valid, and
returns the value in canonical form (``int``, ``float``, ``bool``, the canonical name of an
alias), so that a caller never reads the raw argument again.

Conventions shared by every check:

- a bool is never a number, and a string never a flag or a number (``k=True``, ``p="0.9"`` and
  ``condensed="no"`` are refused, not read as 1, 0.9 and true);
- numpy scalars are accepted wherever Python's are (``np.int64(3)`` is an integer);
- the message reads ``<name> must be <what is valid>, got <the value>``; a choice lists every
  valid choice.

Rankings themselves (permutations of 1..n) are checked by :func:`rankbook.permutations.validate`
and its block-wise form, which use the compiled kernels where numba is loaded; this module
imports nothing from rankbook, so every module can use it without an import cycle.
"""

from __future__ import annotations

import math
import numbers
from typing import Iterable, Mapping, Optional

import numpy as np

__all__ = [
    "format_choices", "check_choice", "check_int", "check_k", "check_number",
    "check_probability", "check_flag", "check_seed", "check_finite", "check_no_nul",
]


def format_choices(choices: Iterable) -> str:
    """The choices as the messages print them: ``'a', 'b', 'c'``.

    Parameters
    ----------
    choices : iterable
        The valid values.

    Returns
    -------
    str

    Examples
    --------
    >>> format_choices(("def1", "lenient"))
    "'def1', 'lenient'"
    """
    return ", ".join(map(repr, choices))


def _is_number(value) -> bool:
    return isinstance(value, numbers.Real) and not isinstance(value, (bool, np.bool_))


def check_choice(value, choices: Iterable, name: str, *, aliases: Optional[Mapping] = None,
                 allow_none: bool = False, none_means: str = "", explain: str = ""):
    """Return ``value`` if it is one of ``choices`` (an alias: its canonical name), else refuse it.

    Parameters
    ----------
    value : object
        The argument.
    choices : iterable
        The valid values (strings for every option of rankbook).
    name : str
        The argument's name, as the message shows it.
    aliases : mapping, optional
        Other spellings that stay valid, ``{alias: canonical}``.
    allow_none : bool
        Let ``None`` through (it then means "not given" or "no such rule").
    none_means : str
        What ``None`` means, for the message (``"no ties allowed"``).
    explain : str
        Appended to the message in parentheses: what the choices mean.

    Returns
    -------
    object
        ``value``, or the canonical name of an alias, or ``None``.

    Raises
    ------
    ValueError
        ``<name> must be one of 'a', 'b'; got 'x'`` (with the aliases, ``None`` and ``explain``
        when given).

    Examples
    --------
    >>> check_choice("lenient", ("def1", "lenient"), "ties")
    'lenient'
    >>> check_choice("average", ("expected",), "ties", aliases={"average": "expected"})
    'expected'
    >>> check_choice("def2", ("def1", "lenient"), "ties")
    Traceback (most recent call last):
    ...
    ValueError: ties must be one of 'def1', 'lenient'; got 'def2'
    """
    choices = tuple(choices)
    if value is None and allow_none:
        return None
    aliases = dict(aliases or {})
    try:
        hashable = hash(value) is not None
    except TypeError:  # a list or a dict is no choice (and no alias key)
        hashable = False
    if hashable and not isinstance(value, (np.ndarray, bool, np.bool_)):
        if value in aliases:
            return aliases[value]
        # compare by type too: 1 is not "1", and True is not 1
        for choice in choices:
            if (isinstance(choice, str) and isinstance(value, str) or type(choice) is type(value)) \
                    and choice == value:
                return choice
    text = format_choices(choices)
    if aliases:
        text += " (or " + ", ".join(f"the alias {a!r} of {b!r}" for a, b in aliases.items()) + ")"
    if allow_none:
        text += ", or None" + (f" ({none_means})" if none_means else "")
    extra = f" ({explain})" if explain else ""
    raise ValueError(f"{name} must be one of {text}{extra}; got {value!r}")


def check_int(value, name: str, *, low: Optional[int] = None, high: Optional[int] = None,
              allow: Iterable = (), allow_none: bool = False, explain: str = ""):
    """Return ``value`` as an ``int`` if it is an integer in ``low..high``, else refuse it.

    Parameters
    ----------
    value : object
        The argument; Python and numpy integers are accepted, bools and floats are not (a float
        such as ``3.0`` is refused too: a count is written as an integer).
    name : str
        The argument's name.
    low, high : int, optional
        Inclusive bounds.
    allow : iterable of int
        Special values accepted outside the bounds (``-1`` for "one per CPU").
    allow_none : bool
        Let ``None`` through.
    explain : str
        Appended to the message in parentheses (what the bound means).

    Returns
    -------
    int or None

    Raises
    ------
    ValueError
        ``<name> must be an integer >= 1, got 0`` (or ``in 1..9``, with the special values).

    Examples
    --------
    >>> check_int(3, "n", low=1)
    3
    >>> check_int(-1, "n_jobs", low=1, allow=(-1,))
    -1
    >>> check_int(True, "n", low=1)
    Traceback (most recent call last):
    ...
    ValueError: n must be an integer >= 1, got True
    """
    if value is None and allow_none:
        return None
    ok = isinstance(value, numbers.Integral) and not isinstance(value, (bool, np.bool_))
    allow = tuple(allow)
    if ok and int(value) in allow:
        return int(value)
    if ok and (low is None or value >= low) and (high is None or value <= high):
        return int(value)
    if low is not None and high is not None:
        what = f"an integer in {low}..{high}"
    elif low is not None:
        what = f"an integer >= {low}"
    elif high is not None:
        what = f"an integer <= {high}"
    else:
        what = "an integer"
    if allow:
        what += f" (or {', '.join(map(str, allow))})"
    if allow_none:
        what += " or None"
    if explain:
        what += f" ({explain})"
    raise ValueError(f"{name} must be {what}, got {value!r}")


def check_k(k, n: int, name: str = "k") -> int:
    """The cut-off of a metric over rankings of ``n`` items: an integer in ``1..n``, required.

    Parameters
    ----------
    k : object
        The argument.
    n : int
        The number of items ranked.
    name : str
        The argument's name.

    Returns
    -------
    int

    Raises
    ------
    ValueError
        When ``k`` is missing, not an integer, or outside ``1..n``.

    Examples
    --------
    >>> check_k(2, 4)
    2
    >>> check_k(5, 4)
    Traceback (most recent call last):
    ...
    ValueError: k must be an integer in 1..n=4, got 5
    """
    if k is None:
        raise ValueError(f"this metric needs {name} (the number of relevant = retrieved items), "
                         f"an integer in 1..n={n}")
    if isinstance(k, numbers.Integral) and not isinstance(k, (bool, np.bool_)) and 1 <= k <= n:
        return int(k)
    raise ValueError(f"{name} must be an integer in 1..n={n}, got {k!r}")


def check_number(value, name: str, *, low: Optional[float] = None, high: Optional[float] = None,
                 low_open: bool = False, high_open: bool = False, allow_none: bool = False,
                 example: str = "") -> Optional[float]:
    """Return ``value`` as a finite ``float`` within the bounds, else refuse it.

    Parameters
    ----------
    value : object
        The argument: a real number (Python or numpy), not a bool or a string.
    name : str
        The argument's name.
    low, high : float, optional
        The bounds; closed unless ``low_open`` / ``high_open``.
    low_open, high_open : bool
        Exclude the bound itself.
    allow_none : bool
        Let ``None`` through.
    example : str
        A valid value the message suggests (``"e.g. 0.95"``).

    Returns
    -------
    float or None

    Raises
    ------
    ValueError
        ``<name> must be a number in (0, 1), got 1.5``; nan and infinities are refused.

    Examples
    --------
    >>> check_number(0.5, "p", low=0, high=1, low_open=True, high_open=True)
    0.5
    >>> check_number("0.5", "p", low=0, high=1)
    Traceback (most recent call last):
    ...
    ValueError: p must be a number in [0, 1], got '0.5'
    """
    if value is None and allow_none:
        return None
    if low is not None and high is not None:
        what = f"a number in {'(' if low_open else '['}{low:g}, {high:g}{')' if high_open else ']'}"
    elif low is not None:
        what = f"a number {'>' if low_open else '>='} {low:g}"
    elif high is not None:
        what = f"a number {'<' if high_open else '<='} {high:g}"
    else:
        what = "a finite number"
    if allow_none:
        what += " or None"
    if example:
        what += f" ({example})"
    if not _is_number(value):
        raise ValueError(f"{name} must be {what}, got {value!r}")
    x = float(value)
    if not math.isfinite(x) or (low is not None and (x < low or (low_open and x == low))) or (
            high is not None and (x > high or (high_open and x == high))):
        raise ValueError(f"{name} must be {what}, got {value!r}")
    return x


def check_probability(value, name: str = "p", *, meaning: str = "") -> float:
    """A number strictly between 0 and 1 (a persistence, a confidence level, a share).

    Parameters
    ----------
    value : object
        The argument.
    name : str
        The argument's name.
    meaning : str
        What the value is, shown in the message (``"the persistence"``).

    Returns
    -------
    float

    Raises
    ------
    ValueError
        ``p must be a number with 0 < p < 1 (the persistence), got 1``.

    Examples
    --------
    >>> check_probability(0.9)
    0.9
    >>> check_probability(True, meaning="the persistence")
    Traceback (most recent call last):
    ...
    ValueError: p must be a number with 0 < p < 1 (the persistence), got True
    """
    if _is_number(value) and 0.0 < float(value) < 1.0:
        return float(value)
    extra = f" ({meaning})" if meaning else ""
    raise ValueError(f"{name} must be a number with 0 < {name} < 1{extra}, got {value!r}")


def check_flag(value, name: str, *, allow_none: bool = False, none_means: str = "") -> Optional[bool]:
    """Return ``value`` as a ``bool`` if it is one (Python's or numpy's), else refuse it.

    Strings are refused: ``"no"`` and ``"false"`` are true in Python, so reading them as flags
    would silently invert the user's intent.

    Parameters
    ----------
    value : object
        The argument.
    name : str
        The argument's name.
    allow_none : bool
        Let ``None`` through.
    none_means : str
        What ``None`` means, for the message (``"detect"``).

    Returns
    -------
    bool or None

    Raises
    ------
    ValueError
        ``<name> must be True or False, got 'no'``.

    Examples
    --------
    >>> check_flag(False, "condensed")
    False
    >>> check_flag("no", "condensed")
    Traceback (most recent call last):
    ...
    ValueError: condensed must be True or False, got 'no'
    """
    if value is None and allow_none:
        return None
    if isinstance(value, (bool, np.bool_)):
        return bool(value)
    if allow_none:
        what = "True, False or None" + (f" ({none_means})" if none_means else "")
    else:
        what = "True or False"
    raise ValueError(f"{name} must be {what}, got {value!r}")


def check_seed(seed, *, generator: bool = True):
    """A seed: ``None``, a non-negative integer or (if ``generator``) a ``numpy.random.Generator``.

    Parameters
    ----------
    seed : object
        The argument.
    generator : bool
        Accept a ``numpy.random.Generator`` as it is.

    Returns
    -------
    int, numpy.random.Generator or None

    Raises
    ------
    ValueError
        For a bool, a negative number, a float or anything else.

    Examples
    --------
    >>> check_seed(7), check_seed(None)
    (7, None)
    >>> check_seed(-1)
    Traceback (most recent call last):
    ...
    ValueError: seed must be a non-negative integer, a numpy Generator or None; got -1
    """
    if seed is None or (generator and isinstance(seed, np.random.Generator)):
        return seed
    if isinstance(seed, numbers.Integral) and not isinstance(seed, (bool, np.bool_)) and seed >= 0:
        return int(seed)
    what = "a non-negative integer, a numpy Generator or None" if generator else \
        "a non-negative integer or None"
    raise ValueError(f"seed must be {what}; got {seed!r}")


def check_finite(values, name: str) -> np.ndarray:
    """``values`` as a float64 array of finite numbers (no nan, no infinity).

    Parameters
    ----------
    values : array_like
        Numbers of any shape.
    name : str
        The argument's name.

    Returns
    -------
    ndarray of float64

    Raises
    ------
    ValueError
        For anything that is not numbers, bools, or a nan or infinity (the first one's position
        is named).

    Examples
    --------
    >>> check_finite([1, 2.5], "scores").tolist()
    [1.0, 2.5]
    >>> check_finite([1, float("nan")], "scores")
    Traceback (most recent call last):
    ...
    ValueError: scores must be finite numbers; position 1 holds nan
    """
    if isinstance(values, (str, bytes)):
        raise ValueError(f"{name} must be numbers, got a string {values!r}")
    arr = np.asarray(values)
    if arr.dtype.kind not in "iuf":
        raise ValueError(f"{name} must be numbers, got dtype {arr.dtype}")
    arr = arr.astype(np.float64, copy=False)
    bad = ~np.isfinite(arr)
    if bad.any():
        where = np.unravel_index(int(np.flatnonzero(bad.ravel())[0]), arr.shape) if arr.ndim else ()
        at = f"position {where[0]}" if len(where) == 1 else f"index {tuple(int(i) for i in where)}"
        raise ValueError(f"{name} must be finite numbers; {at} holds {arr[where]}")
    return arr


#: Ids joined per chunk when looking for a NUL character: bounds the memory of the check.
_NUL_CHUNK = 1 << 18


def check_no_nul(ids, what: str) -> None:
    """Refuse text ids that hold a NUL character (``"\\x00"``).

    pandas (3.0) hashes and compares text only up to its first NUL, so ``"a"`` and
    ``"a\\x00b"`` would be one id in every factorization, join and group: a silently wrong
    number (Kendall's tau of a list with itself came out ``nan``). No TREC file can hold such an
    id (the reader refuses control bytes), so ids from dicts, DataFrames and lists are held to the
    same rule. Only ``str`` items are looked at; the check joins them in chunks (C speed).

    Parameters
    ----------
    ids : array_like or sequence
        The ids, of any types.
    what : str
        What they are, for the message ("the document ids of the run").

    Raises
    ------
    ValueError
        Naming the first id with a NUL and its position.

    Examples
    --------
    >>> check_no_nul(["d1", "d2", 3], "the document ids")
    >>> check_no_nul(["d1", "d\\x002"], "the document ids")
    Traceback (most recent call last):
    ...
    ValueError: the document ids must not hold a NUL character ('\\x00'); position 1 holds 'd\\x002' (pandas compares text only up to its first NUL, so it would be taken for another id)
    """
    if isinstance(ids, np.ndarray):
        if ids.dtype.kind in "iufb":
            return
        # numpy pads str items with NULs, so a "U" array's items have none at their end
        seq = (ids.astype(object) if ids.dtype.kind == "U" else ids).ravel()
    else:
        seq = ids
    for start in range(0, len(seq), _NUL_CHUNK):
        part = seq[start:start + _NUL_CHUNK]
        try:
            text = "".join(part)
        except TypeError:  # not all text: look at the str items only
            text = "".join(x for x in part if isinstance(x, str))
        if "\x00" in text:
            break
    else:
        return
    pos = next(i for i, x in enumerate(seq) if isinstance(x, str) and "\x00" in x)
    raise ValueError(
        f"{what} must not hold a NUL character ('\\x00'); position {pos} holds {seq[pos]!r} "
        "(pandas compares text only up to its first NUL, so it would be taken for another id)")
