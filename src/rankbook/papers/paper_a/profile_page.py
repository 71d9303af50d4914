"""The page ``metric_profile`` (profile a metric of one's own against paper A's properties):
what its parameters allow together."""

from __future__ import annotations
from rankbook.ledger.limits import within_memory, within_time


# ----------------------------------------------------------------------------------------
# What the page's parameters allow together (its notebook's metadata "check"), checked
# before any kernel starts
# ----------------------------------------------------------------------------------------
def _type_i_and_agreement(values: dict, timeout: float) -> None:
    """The Type I rows hold every run of every pair at once (measured: about 37 bytes per run,
    pair and item, 0.6 us to compute); the agreement sample about 15 bytes per ranking and item
    (0.7 us)."""
    ns, n_pairs, n_runs = values["ns"], values["n_pairs"], values["n_runs"]
    entries = n_runs * n_pairs * max(ns)
    within_memory(64 * entries, f"the Type I rows (n_runs = {n_runs} x n_pairs = {n_pairs} x "
                   f"max(ns) = {max(ns)} items)", "lower n_runs, n_pairs or the largest of ns")
    within_time(1e-6 * n_runs * n_pairs * sum(ns), timeout,
                 f"the Type I rows (n_runs = {n_runs} x n_pairs = {n_pairs} x sum(ns) = {sum(ns)})",
                 "lower n_runs, n_pairs or ns")
    a_n, a_pairs = values["agreement_n"], values["agreement_pairs"]
    within_memory(32 * a_n * a_pairs, f"the agreement sample (agreement_pairs = {a_pairs} "
                   f"rankings x agreement_n = {a_n} items)", "lower agreement_pairs or agreement_n")
    within_time(2e-6 * a_n * a_pairs, timeout, f"the agreement sample (agreement_pairs = "
                 f"{a_pairs} x agreement_n = {a_n})", "lower agreement_pairs or agreement_n")


def limits(values: dict, root, timeout: float) -> None:
    """the Type I rows (n_runs x n_pairs x ns) and the agreement sample (agreement_pairs x
    agreement_n) fit in memory and time; a cut-off k other than 0 stays below every ranking
    length the profile uses (n_exhaustive - 1 for the triples, n_swap, ns, agreement_n)."""
    _type_i_and_agreement(values, timeout)
    k = values["k"]
    if not k:
        return
    lengths = {"n_exhaustive - 1": values["n_exhaustive"] - 1, "n_swap": values["n_swap"],
               "min(ns)": min(values["ns"]), "agreement_n": values["agreement_n"]}
    name, smallest = min(lengths.items(), key=lambda kv: kv[1])
    if k >= smallest:
        raise ValueError(f"k = {k} must be below every ranking length the profile uses; the "
                         f"smallest is {name} = {smallest} (or give k = 0 for max(1, n // 4))")
