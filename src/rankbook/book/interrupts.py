"""SIGINT and SIGTERM as an exception, from the first line of ``rankbook``'s ``main``.

This module imports nothing slow (only the standard library's ``signal``, ``contextlib`` and
``threading``), so that ``rankbook`` installs its handlers before anything that can take time:
a Ctrl-C or a ``kill`` at any moment of a build, run, sweep or compare ends in one line and
status 130 or 143, never in Python's default handler (a traceback, or death by the signal with
status -2 or -15).

The rule: the first SIGINT or SIGTERM raises :class:`Interrupted` in the main thread, and from
then on both signals are ignored, so that cleanup (staging folders removed, workers stopped,
the one-line report) cannot be cut short by a second Ctrl-C. Code that must not be cut in the
middle (a pair of renames, a redirected file descriptor) runs in :func:`deferred`: a signal that
arrives there is raised when the block ends.
"""

from __future__ import annotations

import contextlib
import os
import signal
import threading

SIGNALS = (signal.SIGINT, signal.SIGTERM)


class Interrupted(BaseException):
    """SIGINT or SIGTERM arrived; raised in the main thread so that cleanup code runs.

    A ``BaseException`` (like ``KeyboardInterrupt``) so that ``except Exception`` in between
    does not swallow it. ``exit_status`` is 130 for SIGINT and 143 for SIGTERM.

    Examples
    --------
    >>> Interrupted(signal.SIGTERM).exit_status
    143
    """

    def __init__(self, signum: int):
        self.signum = signum
        self.exit_status = 128 + signum
        super().__init__(f"interrupted by {signal.Signals(signum).name}")


#: Depth of :func:`deferred` blocks, the signal that arrived inside them (if any), and
#: whether the command's outcome is settled (:func:`settle`).
_DEFER = {"depth": 0, "pending": None, "settled": False}

#: ``RANKBOOK_SIGNAL_AT=NAME`` (or ``NAME:TERM``) sends this process SIGINT (SIGTERM) when it
#: reaches :func:`checkpoint` ``NAME``: the tests put a signal at an exact moment (just
#: before, or just after, an output is renamed into place) instead of at a random time.
SIGNAL_AT_ENV = "RANKBOOK_SIGNAL_AT"


def checkpoint(name: str) -> None:
    """A named moment of a command; a test can have a signal sent to this process exactly
    there (:data:`SIGNAL_AT_ENV`). Does nothing otherwise.

    Examples
    --------
    >>> checkpoint("anything")  # RANKBOOK_SIGNAL_AT unset: nothing happens
    """
    want = os.environ.get(SIGNAL_AT_ENV)
    if not want:
        return
    where, _, sig = want.partition(":")
    if where == name:
        os.kill(os.getpid(), signal.SIGTERM if sig.upper() in ("TERM", "SIGTERM") else signal.SIGINT)


def settle() -> None:
    """The command's outcome is decided (its outputs are written and reported): from now on
    SIGINT and SIGTERM are ignored, and an :func:`interruptible` block that ends does not put
    the handlers back, so a late signal can no longer turn a success into a false report.
    ``rankbook``'s ``main`` resets it when it returns."""
    _DEFER["settled"] = True
    _ignore_both()


def _ignore_both() -> None:
    for sig in SIGNALS:
        signal.signal(sig, signal.SIG_IGN)


def _raise(signum, frame):
    """The handler: ignore further signals, then raise (or, inside :func:`deferred`, keep the
    signal for the end of the block)."""
    _ignore_both()
    if _DEFER["depth"]:
        _DEFER["pending"] = _DEFER["pending"] or signum
        return
    raise Interrupted(signum)


def _main_thread() -> bool:
    return threading.current_thread() is threading.main_thread()


def install() -> dict:
    """Make SIGINT and SIGTERM raise :class:`Interrupted` (the first of them; the rest are
    ignored). Returns the handlers it replaced (for :func:`restore`); does nothing outside the
    main thread."""
    if not _main_thread():
        return {}
    before = {}
    for sig in SIGNALS:
        before[sig] = signal.signal(sig, _raise)
    return before


def restore(before: dict) -> None:
    """Put back the handlers :func:`install` replaced."""
    for sig, old in before.items():
        signal.signal(sig, old)


@contextlib.contextmanager
def deferred():
    """A block no signal cuts in the middle: a SIGINT or SIGTERM that arrives in it raises
    :class:`Interrupted` when the block ends (only handlers of this module defer).

    Examples
    --------
    >>> with deferred():
    ...     pass
    """
    _DEFER["depth"] += 1
    try:
        yield
    finally:
        _DEFER["depth"] -= 1
    if not _DEFER["depth"] and _DEFER["pending"]:
        signum, _DEFER["pending"] = _DEFER["pending"], None
        raise Interrupted(signum)


@contextlib.contextmanager
def interruptible():
    """While the block runs, SIGINT and SIGTERM raise :class:`Interrupted` in the main thread,
    so that ``finally`` blocks clean up; a second signal during cleanup is ignored. After an
    interruption the signals stay ignored (a third Ctrl-C while the caller reports it must not
    kill the process): the caller restores them (``rankbook``'s ``main`` does). Outside the
    main thread (a notebook's kernel thread) it does nothing."""
    if not _main_thread():
        yield
        return
    hit = []
    before = install()
    try:
        yield
    except Interrupted:  # ours, or an inner block's: leave the signals ignored
        hit.append(True)
        raise
    finally:
        if not hit and not _DEFER["settled"]:
            restore(before)
