"""The page ``comparing_systems`` (paired tests and intervals for runs): what its parameters
allow together."""

from __future__ import annotations
from rankbook.ledger.limits import within_memory, within_time


# ----------------------------------------------------------------------------------------
# What the page's parameters allow together (its notebook's metadata "check"), checked
# before any kernel starts
# ----------------------------------------------------------------------------------------
def limits(values: dict, root, timeout: float) -> None:
    """systems (1 + n_null + len(effects)) x n_queries x n_resamples (the comparison) and x
    n_repeats (the error rates, at most 2000 resamples each) fit in memory and time."""
    systems = 1 + values["n_null"] + len(values["effects"])
    q, b, reps = values["n_queries"], values["n_resamples"], values["n_repeats"]
    # measured (tests/extremes.py in process): about 12 bytes per resample and query held at
    # once; about 25 ns per system, resample and query for the comparison and 8 ns per
    # repeat, system, resample and query for the error rates; margins of 2 to 3
    within_memory(32 * b * q, f"the resamples (n_resamples = {b} x n_queries = {q})",
                   "lower n_resamples or n_queries")
    seconds = 2 * (2.5e-8 * systems * b * q + 8e-9 * reps * systems * min(b, 2000) * q)
    within_time(seconds, timeout,
                 f"{systems} systems (1 + n_null + len(effects)) on n_queries = {q} queries with "
                 f"n_resamples = {b} and n_repeats = {reps} simulated collections",
                 "lower n_repeats, n_resamples, n_queries or the number of systems")
