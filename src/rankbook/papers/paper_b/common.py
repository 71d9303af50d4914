"""What the four paper B pages share: a section's tables and text, the published files.

A page section that states no claim returns a :class:`Section`; a claim returns a
:class:`rankbook.book.claims.Evidence`. Both carry ``tables`` (stem -> DataFrame) and
``values``; ``values["show"]`` holds, per table stem, how the page saves it (title, number
format, folded or hidden), and ``values["markdown"]`` the sentences the page displays. The
notebook passes each table to ``rankbook.book.outputs.save_table`` and each sentence to
``display(Markdown(...))``: it computes nothing.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import pandas as pd

from rankbook.book.paths import data_path

#: The four rankings of the running example (Sections IV-B and IV-D2).
EXAMPLE_1 = ("abcdef", "bdcefa", "bcdeghijkf", "badefc")
#: The same example as Section IV-A prints it (``r3`` lacks ``e``).
SECTION_IV_A = ("abcdef", "bdcefa", "bcdghijklf", "badefc")
#: The rankings of the search-engine and aggregation pages.
TABLE_V = "rankings/paper_b_table_v_search.csv"
TABLE_II = "rankings/paper_b_table_ii_clustering.csv"
TABLE_III = "rankings/paper_b_table_iii_aggregations.csv"


@dataclass
class Section:
    """The tables and sentences of one page section that checks no claim."""

    tables: dict = field(default_factory=dict)
    values: dict = field(default_factory=dict)


def add_table(obj, stem: str, frame: pd.DataFrame, **options) -> pd.DataFrame:
    """Attach ``frame`` to a :class:`Section` or an Evidence, with its save options."""
    obj.tables[stem] = frame
    obj.values.setdefault("show", {})[stem] = options
    return frame


def say(obj, text: str) -> None:
    """Attach one Markdown sentence the page displays."""
    obj.values.setdefault("markdown", []).append(text)


def published(name: str):
    """The path of one file of ``data/published/paper_b``."""
    return data_path("published", "paper_b", name)


def stated_values(name: str) -> pd.Series:
    """The ``quantity,value`` file ``name`` of ``data/published/paper_b`` as a float Series."""
    from .checks import read_published_values

    return read_published_values(published(name)).set_index("quantity")["value"].astype(float)


def fmt(values, spec: str = "g") -> str:
    """Numbers joined by commas: ``fmt([5.0, 7.0]) == '5, 7'``."""
    return ", ".join(format(float(x), spec) for x in values)
