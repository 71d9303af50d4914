"""How the appendix shortened its numbers, and whether a printed cell shows a recomputed value.

Two styles of cell:

* a **fixed** number of decimals (ARP, τ, RBO, RMSE at 4 decimals; a p-value of at least
  ``switch`` at ``p_decimals`` decimals), or an integer (the original run's own row);
* a p-value below ``switch`` in **E notation** with ``p_digits`` significant digits (``5E-04``).

A value is shortened to a style by one of :data:`RULES`, each applied to the exact binary value
of the double (as C's ``printf`` sees it):

``round``
    to the nearest, ties to even (``printf("%.4f")``);
``round half up``
    to the nearest, ties away from zero (Matlab's ``round``);
``cut``
    the digits beyond the last printed one dropped (towards zero);
``cut of %.4E``
    the authors' scripts print p-values with ``%.4E`` (5 significant digits, rounded); that text
    then cut to the printed digits.

:func:`grade` marks a printed cell as agreeing when it equals the recomputed value shortened by
one of the rules a claim allows (its ``p_rules`` for p-values, ``rules`` for the others).
"""

from __future__ import annotations

import math
import re
from decimal import ROUND_DOWN, ROUND_HALF_EVEN, ROUND_HALF_UP, Decimal

import pandas as pd

__all__ = ["RULES", "parse", "fixed", "scientific", "p_value", "shorten", "grade",
           "rule_counts", "bump"]

RULES = ("round", "round half up", "cut", "cut of %.4E")
_MODE = {"round": ROUND_HALF_EVEN, "round half up": ROUND_HALF_UP, "cut": ROUND_DOWN,
         "cut of %.4E": ROUND_DOWN}
_SCI = re.compile(r"^([0-9]+(?:\.[0-9]+)?)E([-+])([0-9]+)$")


def _check_rule(rule):
    if rule not in RULES:
        raise ValueError(f"unknown rule {rule!r}; valid: {list(RULES)}")


def parse(printed: str) -> dict:
    """The style of a printed cell: ``{"style": "fixed"|"integer"|"scientific", "decimals",
    "mantissa", "exponent", "unit"}``; ``unit`` is the value of one unit of its last digit.

    Examples
    --------
    >>> parse("0.046")["decimals"], parse("54E-06")["mantissa"], parse("1")["style"]
    (3, '54', 'integer')
    """
    s = str(printed).strip()
    m = _SCI.match(s)
    if m:
        mant, sign, exp = m.groups()
        e = int(exp) * (-1 if sign == "-" else 1)
        dec = len(mant.split(".")[1]) if "." in mant else 0
        return {"style": "scientific", "decimals": dec, "mantissa": mant, "exponent": e,
                "unit": 10.0 ** (e - dec)}
    if re.fullmatch(r"-?[0-9]+", s):
        return {"style": "integer", "decimals": 0, "mantissa": s, "exponent": 0, "unit": 1.0}
    if re.fullmatch(r"-?[0-9]*\.[0-9]+", s):
        d = len(s.split(".")[1])
        return {"style": "fixed", "decimals": d, "mantissa": s, "exponent": 0,
                "unit": 10.0 ** -d}
    raise ValueError(f"not a printed number: {printed!r} (fixed decimals, an integer, or "
                     "E notation like 5E-04)")


def _decimal(value, rule) -> Decimal:
    if not math.isfinite(value):
        raise ValueError(f"cannot shorten {value!r}")
    if rule == "cut of %.4E":
        return Decimal(f"{value:.4E}")
    return Decimal(float(value))


def fixed(value: float, decimals: int, rule: str = "round") -> str:
    """``value`` with ``decimals`` decimals under ``rule``.

    Examples
    --------
    >>> fixed(0.4232650, 4), fixed(0.079966, 3, "cut"), fixed(0.079966, 3), fixed(1.0, 0)
    ('0.4233', '0.079', '0.080', '1')
    """
    _check_rule(rule)
    q = Decimal(1).scaleb(-int(decimals))
    out = _decimal(value, rule).quantize(q, rounding=_MODE[rule])
    return f"{out:.{int(decimals)}f}"


def scientific(value: float, digits: int, rule: str = "round") -> str:
    """``value`` in E notation with ``digits`` significant digits under ``rule`` (``5E-04``).

    Examples
    --------
    >>> scientific(5.8335e-4, 1, "cut"), scientific(5.8335e-4, 1), scientific(9.97e-5, 1)
    ('5E-04', '6E-04', '1E-04')
    """
    _check_rule(rule)
    d = _decimal(value, rule)
    if d <= 0:
        raise ValueError(f"E notation here is for positive values, got {value!r}")
    e = d.adjusted()
    m = d.scaleb(-e).quantize(Decimal(1).scaleb(-(int(digits) - 1)), rounding=_MODE[rule])
    if m >= 10:
        m, e = (m / 10).quantize(Decimal(1).scaleb(-(int(digits) - 1))), e + 1
    return f"{m}E{'-' if e < 0 else '+'}{abs(e):02d}"


def p_value(value: float, rule: str, *, decimals: int, switch: float, digits: int) -> str:
    """A p-value as the appendix prints it: ``decimals`` decimals from ``switch`` up, else E
    notation with ``digits`` significant digits (a value that reaches ``switch`` by rounding is
    printed in the fixed style).

    Examples
    --------
    >>> style = dict(decimals=3, switch=0.001, digits=1)
    >>> p_value(0.0462904, "cut", **style), p_value(4.955e-11, "cut", **style), \\
    ...     p_value(9.996e-4, "round", **style)
    ('0.046', '4E-11', '0.001')
    """
    if value >= switch:
        return fixed(value, decimals, rule)
    s = scientific(value, digits, rule)
    if float(s) >= switch:
        return fixed(float(s), decimals, "round")
    return s


def shorten(value: float, printed: str, rule: str, *, is_p: bool, decimals: int,
            p_decimals: int, p_switch: float, p_digits: int) -> str:
    """``value`` shortened as the cell ``printed`` would be under ``rule``: a printed integer at
    0 decimals, a p-value by :func:`p_value`, any other cell at ``decimals`` decimals."""
    if parse(printed)["style"] == "integer":
        return fixed(value, 0, rule)
    if is_p:
        return p_value(value, rule, decimals=p_decimals, switch=p_switch, digits=p_digits)
    return fixed(value, decimals, rule)


def grade(cells: pd.DataFrame, *, rules, p_rules, decimals: int, p_decimals: int,
          p_switch: float, p_digits: int) -> pd.DataFrame:
    """Grade each printed cell against its recomputed value.

    Parameters
    ----------
    cells : pandas.DataFrame
        Columns ``printed`` (str), ``recomputed`` (float) and ``is_p`` (bool).
    rules, p_rules : sequence of str
        The rules under which a cell agrees (others; p-values): each of :data:`RULES`.

    Returns
    -------
    pandas.DataFrame
        ``cells`` with one column per rule of :data:`RULES` (the recomputed value shortened
        under it), ``agrees``, ``off_units`` (recomputed minus the printed number, in units of
        the printed last digit) and ``kind``: empty when the cell agrees, ``typo`` when the
        printed text has more significant digits than its style prints and its first digit and
        exponent are those of an allowed shortening, else ``off``.
    """
    for r in (*rules, *p_rules):
        _check_rule(r)
    out = cells.copy()
    opts = dict(decimals=decimals, p_decimals=p_decimals, p_switch=p_switch, p_digits=p_digits)
    for rule in RULES:
        out[rule] = [shorten(v, p, rule, is_p=bool(isp), **opts)
                     for v, p, isp in zip(out["recomputed"], out["printed"], out["is_p"])]
    agree, kinds, units = [], [], []
    for _, row in out.iterrows():
        allowed = [row[r] for r in (p_rules if row["is_p"] else rules)]
        ok = row["printed"] in allowed
        info = parse(row["printed"])
        units.append((row["recomputed"] - float(row["printed"])) / info["unit"])
        agree.append(ok)
        kind = ""
        if not ok:
            kind = "off"
            if info["style"] == "scientific" and row["is_p"] and \
                    len(info["mantissa"].replace(".", "")) > p_digits:
                for a in allowed:
                    pa = parse(a)
                    if pa["style"] == "scientific" and pa["exponent"] == info["exponent"] \
                            and pa["mantissa"][0] == info["mantissa"][0]:
                        kind = "typo"
        kinds.append(kind)
    out["agrees"], out["off_units"], out["kind"] = agree, units, kinds
    return out


def rule_counts(graded: pd.DataFrame, by) -> pd.DataFrame:
    """How many cells of each group equal the recomputed value under each rule alone, and
    under "cut or round" (either), beside the group's size.

    Examples
    --------
    >>> cells = pd.DataFrame({"printed": ["0.046", "5E-04"], "recomputed": [0.04629, 5.83e-4],
    ...                       "is_p": [True, True], "block": ["p", "p"]})
    >>> g = grade(cells, rules=["round"], p_rules=["round", "cut"], decimals=4, p_decimals=3,
    ...           p_switch=0.001, p_digits=1)
    >>> rule_counts(g, "block")[["cells", "round", "cut"]].values.tolist()
    [[2, 1, 2]]
    """
    rows = []
    for key, g in graded.groupby(by, sort=False):
        row = dict(zip(by, key)) if isinstance(by, (list, tuple)) else {by: key}
        row["cells"] = len(g)
        for rule in RULES:
            row[rule] = int((g[rule] == g["printed"]).sum())
        row["cut or round"] = int(((g["cut"] == g["printed"]) |
                                   (g["round"] == g["printed"])).sum())
        rows.append(row)
    return pd.DataFrame(rows)


def bump(printed: str, units: int = 1) -> str:
    """A printed cell moved by ``units`` units of its last digit, in the same style (the
    mutation tests move published cells with it).

    Examples
    --------
    >>> bump("0.7760"), bump("5E-04"), bump("1"), bump("0.046", -1)
    ('0.7761', '6E-04', '2', '0.045')
    """
    info = parse(printed)
    if info["style"] == "scientific":
        dec = info["decimals"]
        m = Decimal(info["mantissa"]) + Decimal(units).scaleb(-dec)
        e = info["exponent"]
        return f"{m:.{dec}f}E{'-' if e < 0 else '+'}{abs(e):02d}"
    d = info["decimals"]
    v = Decimal(printed) + Decimal(units).scaleb(-d)
    return f"{v:.{d}f}"
