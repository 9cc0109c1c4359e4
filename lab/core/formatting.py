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


def sci_text(value, missing: str = "-") -> str:
    """``1.234e-05``; ``missing`` when the value is None (no float result)."""
    return missing if value is None else f"{value:.3e}"


def vector_text(values, digits: int = 10, missing: str = "-") -> str:
    """``(0.75, 0.25)`` with ``digits`` significant digits; ``missing`` when the vector is None."""
    return missing if values is None else "(" + ", ".join(f"{float(v):.{digits}g}" for v in values) + ")"
