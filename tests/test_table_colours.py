"""The text colour a styled table's coloured cells get (outputs._readable_colours): the same
rules as the unanchored pattern it replaced, found without scanning the table's markup once per
character (that scan took 19 s on a 40-row table of 20 coloured columns, in every build)."""

from __future__ import annotations

import re

import numpy as np
import pandas as pd
from hypothesis import given, settings
from hypothesis import strategies as st

from rankbook.book import outputs

#: The pattern before the anchor: any run of text outside braces could open a rule.
UNANCHORED = re.compile(r"([^{}]+)\{([^{}]*background[^{}]*)\}")


def _with(pattern, html: str) -> str:
    kept = outputs._CSS_RULE_WITH_BACKGROUND
    outputs._CSS_RULE_WITH_BACKGROUND = pattern
    try:
        return outputs._readable_colours(html)
    finally:
        outputs._CSS_RULE_WITH_BACKGROUND = kept


PIECES = ["{", "}", " ", "x", "#T_t td", "<td>", "\n", "background", "background-color", ":",
          "#fafafa", "#1f2f8f", ";", " color: red", "-color:", "</style>"]


@settings(max_examples=400, deadline=None)
@given(st.lists(st.sampled_from(PIECES), max_size=30).map("".join))
def test_the_anchored_rule_changes_what_the_unanchored_one_changes(html):
    assert _with(outputs._CSS_RULE_WITH_BACKGROUND, html) == _with(UNANCHORED, html)


def test_a_styled_table_gets_readable_text_on_every_coloured_cell():
    values = np.random.default_rng(7).random((40, 3))
    df = pd.DataFrame(values, columns=["a", "b", "c"])
    grey = lambda v: "background-color: #{0:02x}{0:02x}{0:02x}".format(int(v * 255))  # noqa: E731
    html = df.style.map(grey).to_html()
    fixed = outputs._readable_colours(html)
    assert fixed == _with(UNANCHORED, html)
    rules = re.findall(r"\{([^{}]*background[^{}]*)\}", fixed)
    assert len(rules) == len({grey(v) for v in values.ravel()})
    # every coloured cell names a text colour: white on the darker greys, near-black on the
    # lighter ones, with one switch between them
    chosen = sorted((int(re.search(r"#([0-9a-f]{2})", rule).group(1), 16),
                     re.search(r"(?<![-\w])color: (#\w+)", rule).group(1)) for rule in rules)
    texts = [text for _, text in chosen]
    switch = texts.index("#1a1a1a")
    assert switch > 0 and set(texts[:switch]) == {"#ffffff"} and set(texts[switch:]) == {"#1a1a1a"}
