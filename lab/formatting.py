"""How numbers are written for people and for JSON: exact fractions beside decimals."""

from __future__ import annotations

from fractions import Fraction


def fraction_text(value: Fraction | int) -> str:
    """``3/4``, ``0``, ``1``: the exact form used in tables and in ``--exact`` JSON."""
    value = Fraction(value)
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def decimal_text(value, digits: int = 6) -> str:
    """A short decimal for display (``0.75``, ``1e-06``)."""
    return f"{float(value):.{digits}g}"


def both_text(value: Fraction, digits: int = 6) -> str:
    """``3/4 (0.75)``; an integer-valued fraction is written once."""
    exact = fraction_text(value)
    if Fraction(value).denominator == 1:
        return exact
    return f"{exact} ({decimal_text(value, digits)})"


def json_number(value, exact: bool):
    """A JSON value: a fraction string on the exact path, a float otherwise."""
    if exact:
        return fraction_text(value)
    return float(value)
