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


_SHARE_WORDS = {
    Fraction(1, 2): ("half", "half the class"),
    Fraction(1, 3): ("a third", "a third of the class"),
    Fraction(2, 3): ("two thirds", "two thirds of the class"),
    Fraction(1, 4): ("a quarter", "a quarter of the class"),
    Fraction(3, 4): ("three quarters", "three quarters of the class"),
}


def share_words(count: int, total: int, of_class: bool = False) -> str:
    """``count`` of ``total`` in plain words: "all", "none", "half", "a third", ... or "3 of 7"; with
    ``of_class`` the subject of a sentence: "everyone", "nobody", "half the class", "3 of 7 students"."""
    if total <= 0 or count <= 0:
        return "nobody" if of_class else "none"
    if count >= total:
        return "everyone" if of_class else "all"
    words = _SHARE_WORDS.get(Fraction(count, total))
    if words:
        return words[of_class]
    return f"{count} of {total} students" if of_class else f"{count} of {total}"
