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


#: The ranking names of :class:`rankbook.properties.Evidence` in the reader's symbols.
_RANKING_SYMBOLS = {"sigma": "σ", "nu": "ν", "tau": "τ", "mu": "μ", "pi": "π", "id-row": "π",
                    "first": "π", "second": "π′", "ref": "ρ"}


def symbols(text: str) -> str:
    """ASCII names of rankings and operators in the reader's symbols: ``sigma`` → σ, ``nu`` → ν,
    ``tau`` → τ, ``ref`` → ρ, the composition ``o`` → ∘, ``m_max`` → mₘₐₓ.

    Examples
    --------
    >>> symbols("m(sigma, nu) and m(ref, ref o (3 4)); m_max")
    'm(σ, ν) and m(ρ, ρ ∘ (3 4)); mₘₐₓ'
    """
    import re

    text = re.sub(r"(?<=\S) o (?=\S)", " ∘ ", str(text))
    text = text.replace("m_max", "mₘₐₓ")
    return re.sub(r"(?<![\w-])(sigma|nu|tau|mu|ref|id-row)(?![\w-])",
                  lambda m: _RANKING_SYMBOLS[m.group(1)], text)


def number(value: float, digits: int = 4) -> str:
    """A computed value as a page shows it: ``digits`` significant digits, integers whole, nan
    as "undefined" (0/0: the metric is not defined there).

    Examples
    --------
    >>> number(13.5765912437), number(22875.0), number(0.666666666667), number(1.0)
    ('13.58', '22875', '0.6667', '1')
    >>> number(float("nan")), number(float("inf"))
    ('undefined', '∞')
    """
    v = float(value)
    if v != v or v in (float("inf"), float("-inf")):
        return {True: "undefined"}.get(v != v, "∞" if v > 0 else "−∞")
    if v == int(v) and abs(v) < 1e15:
        return str(int(v))
    return f"{v:.{digits}g}"


def evidence_text(evidence, digits: int = 4) -> str:
    """A counterexample of :mod:`rankbook.properties` (its ``Evidence``) as a page shows it:
    Greek names for the rankings, ∘ for composition and each value to ``digits`` significant
    digits (the library's own ``str`` keeps 12 for its users). ``""`` for no evidence.

    Examples
    --------
    >>> from rankbook.properties import Evidence
    >>> ev = Evidence.make("m(sigma, sigma) is not constant", {"id-row": [1, 2], "sigma": [2, 1]},
    ...                    {"m(first, first)": 3.0, "m(sigma, sigma)": 2.0 / 3.0})
    >>> evidence_text(ev)
    'm(σ, σ) is not constant; π=[1, 2], σ=[2, 1]; m(π, π)=3, m(σ, σ)=0.6667'
    """
    if evidence is None:
        return ""
    return evidence.format(symbols, _value_name, lambda v: number(v, digits))


def _value_name(key: str) -> str:
    import re

    return symbols(re.sub(r"(?<![\w-])(first|second)(?![\w-])",
                          lambda m: _RANKING_SYMBOLS[m.group(1)], str(key)))
