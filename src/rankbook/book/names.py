"""Display names: the words a reader knows for the ids the code uses.

Metric, reading and parameter ids (``lr_minus``, ``reads_nu_only``, ``nu^-1 o sigma``,
``r_half_life``) never reach a page. Verdicts, tables, explorers and tooltips pass them
through :func:`display` (plain text) or :func:`display_markdown` (maths allowed), so one map
serves every place.
"""

from __future__ import annotations

#: Ids that are not metric names of :mod:`rankbook.metrics` (whose labels come from its
#: registry), with the name a reader knows; Markdown maths where maths reads better.
NAMES = {
    # metric labels that read better than the registry's ASCII
    "lr_minus": "LR−",
    # readings of paper A
    "nu^-1 o sigma": r"$\nu^{-1}\circ\sigma$",
    "nu o sigma^-1": r"$\nu\circ\sigma^{-1}$",
    "reads_nu_only": "reads ν only",
    "reads_sigma_only": "reads σ only",
    # parameters shown in controls and tooltips
    "row": "γ",
    "gamma": "γ",
    "lam": "λ",
    "lambda": "λ",
    "r_half_life": "half-life of the rank weights",
    "column": "λ",  # the columns of the consensus grids (Tables IV and VI)
    "m1": "first metric",
    "m2": "second metric",
    "deviation": "spread d",
    "table": "set",
    "n_pairs": "rankings in the sample",
    "k_share": "k as a share of n",
    "n": "n",
    "k": "k",
    "seed": "seed",
}

#: Plain-text twins of the Markdown names (tooltips, CSV headers, plot labels).
PLAIN = {
    "nu^-1 o sigma": "ν⁻¹∘σ",
    "nu o sigma^-1": "ν∘σ⁻¹",
}


def _metric_label(name: str) -> str | None:
    try:
        from rankbook import metrics

        m = metrics.REGISTRY.get(name) if hasattr(metrics, "REGISTRY") else None
        return m.label if m is not None else None
    except Exception:  # pragma: no cover - the registry is optional here
        return None


def display(name: str) -> str:
    """The plain-text name a reader knows for an id (unknown ids come back unchanged).

    Examples
    --------
    >>> display("lr_minus"), display("nu^-1 o sigma"), display("reads_nu_only")
    ('LR−', 'ν⁻¹∘σ', 'reads ν only')
    """
    text = str(name)
    if text in PLAIN:
        return PLAIN[text]
    if text in NAMES:
        return NAMES[text]
    label = _metric_label(text)
    return label if label else text


def display_markdown(name: str) -> str:
    """The Markdown name (maths allowed) a reader knows for an id.

    Examples
    --------
    >>> display_markdown("nu^-1 o sigma")
    '$\\\\nu^{-1}\\\\circ\\\\sigma$'
    """
    text = str(name)
    if text in NAMES:
        return NAMES[text]
    return display(text)
