"""What the four paper B pages share: the running example, the published values' reader, and
the agreement table of Section V.

A page section that checks no claim returns a :class:`rankbook.ledger.claims.Section`; a claim's
check returns a :class:`rankbook.ledger.claims.Evidence` (both show their tables and sentences
through ``rankbook.book.outputs.show``). The published files are found through the claims'
ledger entries (``claim.path(role)``), never by a path written here; the grids of Section V are
in :mod:`.grids`.
"""

from __future__ import annotations

import pandas as pd

from rankbook.ledger import claims

#: The four rankings of the running example (Sections IV-B and IV-D2).
EXAMPLE_1 = ("abcdef", "bdcefa", "bcdeghijkf", "badefc")
#: The example as Example 1 prints it (``r4`` repeats ``f``, so it is no ranking).
EXAMPLE_1_AS_PRINTED = ("abcdef", "bdcefa", "bcdeghijkf", "badeffc")
#: The same example as Section IV-A prints it (``r3`` lacks ``e``).
SECTION_IV_A = ("abcdef", "bdcefa", "bcdghijklf", "badefc")


def stated_values(path) -> pd.Series:
    """A ``quantity,value`` file of published values as a float Series indexed by quantity."""
    from .checks import read_published_values

    return read_published_values(path).set_index("quantity")["value"].astype(float)


def fmt(values, spec: str = "g") -> str:
    """Numbers joined by commas: ``fmt([5.0, 7.0]) == '5, 7'``."""
    return ", ".join(format(float(x), spec) for x in values)


def agreement(sets: dict, key: str = "set") -> claims.Section:
    """κ with its bootstrap interval, Kendall's W and the mean pairwise τ_b of each set."""
    from rankbook import consensus

    agree = consensus.agreement_summary(sets, n_resamples=1000, seed=0)
    out = claims.Section()
    out.add_table("agreement_measures", pd.DataFrame({
        key: agree["set"], "rankings": agree["rankings"], "common items": agree["common items"],
        "κ": agree["kappa"].map("{:g}".format),
        "κ, 95% bootstrap interval": [f"[{lo:g}, {hi:g}]" for lo, hi in zip(agree["kappa low"], agree["kappa high"])],
        "W (common items)": agree["W (common)"], "p of W (common)": agree["p (common)"], "W (all items)": agree["W (union)"],
        "mean τ_b (common items)": agree["mean tau_b (common)"], "mean τ_b (all items)": agree["mean tau_b (union)"]}),
        float_format="{:.4g}", title="κ, Kendall's W and the mean pairwise τ_b of "
                                     + ("R_c and of R_c with each aggregate" if key == "set" else "each group's rankings"))
    order = lambda column: " > ".join(agree.sort_values(column, ascending=False)["set"].tolist())
    out.say(f"Ordered from most to least agreement: by $\\kappa$ {order('kappa')}; by $W$ on the common items "
            f"{order('W (common)')}; by $W$ on all items {order('W (union)')}; by the mean $\\tau_b$ on the common "
            f"items {order('mean tau_b (common)')}. Kendall's $W$ and the mean Spearman correlation $\\bar\\rho$ of $m$ "
            f"judges are tied by $\\bar\\rho = (mW - 1)/(m - 1)$ (without ties), so $W$ ranks the "
            f"{'sets' if key == 'set' else 'groups'} as the average pairwise rank correlation does, while $\\kappa$ "
            "also grows with the number of items all lists share.")
    return out
