"""The one reader of numbers a person or a link gives: typed values, URL parameters, answers, file values.

Every number that arrives as text goes through :func:`read_number`, which checks its limits on the
text itself before any arithmetic (Python's ``Fraction("1e-99999999")`` would spend seconds building
10**99999999, and ``int()`` of a long digit string is quadratic), then builds the exact ``Fraction``
and checks the size of its numerator and denominator. Refusals raise a :class:`NumberInputError`
subclass whose message names the field and the limit, and never quotes more than a few characters of
the text (a 1 MB value in a link must not become a 1 MB message).

Accepted spellings: ``3/4`` (spaces around ``/`` allowed), ``0.75``, ``.75``, ``75.``, ``1e-3``,
``+0.5``; ``75%`` and the decimal comma ``0,75`` only where the caller allows them. Digits of any
script (``٠٫`` is not a separator, but ``٧`` is the digit 7) are read as the digits they are, as
Python does; surrounding whitespace is ignored. Refused: ``nan``/``inf`` (named as not finite),
``x/0``, digit separators ``_``, and anything beyond the limits below.
"""

from __future__ import annotations

import math
import re
import unicodedata
from dataclasses import dataclass
from fractions import Fraction

from lab.core.errors import LabInputError, said

# Limits, all checked on the text before any big-number arithmetic. A value the lab accepts always
# writes back (as ``numerator/denominator``) into text that these limits accept, so links round-trip.
MAX_TEXT_LENGTH = 250  # characters, whitespace included
MAX_DIGITS = 120  # digits in one run: an integer, a numerator, a denominator, or a decimal's digits
MAX_EXPONENT = 100  # |e| in scientific notation: no probability a person types needs 1e-101
MAX_RESULT_DIGITS = 120  # the exact value's numerator and denominator each have at most this many digits
_RESULT_BOUND = 10**MAX_RESULT_DIGITS

_NON_FINITE = re.compile(r"[+-]?(nan|inf|infinity)")
_FRACTION = re.compile(r"([+-]?)(\d+)\s*/\s*(\d+)")
_DECIMAL = re.compile(r"([+-]?)(\d*)(?:[.](\d*))?(?:e([+-]?)(\d+))?")
_COMMA_DECIMAL = re.compile(r"([+-]?)(\d*)(?:,(\d*))?(?:e([+-]?)(\d+))?")
_PERCENT = re.compile(r"(.*?)\s*%")


class NumberInputError(LabInputError):
    """A number that was refused. ``field`` names where it came from, ``limit`` the limit it broke (or None)."""

    def __init__(self, field: str, text: str, problem: str, limit: str | None = None):
        self.field = field
        self.text = text
        self.problem = problem
        self.limit = limit
        super().__init__(said("{field}: {problem}", field=field, problem=problem))


class NotANumberError(NumberInputError):
    """Text that is not a number in any accepted spelling."""


class NonFiniteNumberError(NumberInputError):
    """``nan``, ``inf`` and their spellings."""


class ZeroDenominatorError(NumberInputError):
    """``x/0``."""


class NumberLimitError(NumberInputError):
    """A number beyond one of the limits (text length, digits, exponent, size of the exact value)."""


class TextTooLongError(NumberLimitError):
    pass


class TooManyDigitsError(NumberLimitError):
    pass


class ExponentLimitError(NumberLimitError):
    pass


class ValueTooLargeError(NumberLimitError):
    pass


class OutOfRangeError(NumberInputError):
    """A number that was read but lies outside the range the field allows."""


def shown(text: str, limit: int = 24) -> str:
    """The text for a message: quoted, and cut short (with its length) when it is long."""
    text = str(text)
    if len(text) <= limit:
        return repr(text)
    return f"{text[: limit - 4]!r}… ({len(text):,} characters)"


@dataclass(frozen=True)
class ReadNumber:
    """A number as read: the exact value and the spelling it was written in
    (``integer``, ``fraction``, ``decimal`` or ``percent``)."""

    value: Fraction
    form: str


def _ascii_digits(text: str) -> str | None:
    """Digits of any script as ASCII digits (what ``int()`` accepts); None when a character is a
    digit-like symbol that is not a decimal digit (superscripts, circled digits)."""
    if text.isascii():
        return text
    out = []
    for ch in text:
        if ch.isdecimal():
            out.append(str(unicodedata.decimal(ch)))
        elif ch.isdigit() or ch.isnumeric():
            return None
        else:
            out.append(ch)
    return "".join(out)


def _check_exact_size(value: Fraction, field: str, text: str) -> Fraction:
    if abs(value.numerator) >= _RESULT_BOUND or value.denominator >= _RESULT_BOUND:
        raise ValueTooLargeError(
            field,
            text,
            said("{value} is too large or too finely divided: its exact fraction needs more than {digits} digits "
                 "above or below the line", value=shown(text), digits=MAX_RESULT_DIGITS),
            f"{MAX_RESULT_DIGITS} digits",
        )
    return value


def _check_digit_runs(runs, field: str, text: str) -> None:
    for run in runs:
        if run and len(run) > MAX_DIGITS:
            raise TooManyDigitsError(
                field,
                text,
                said("{value} has more than {digits} digits in a row", value=shown(text), digits=MAX_DIGITS),
                f"{MAX_DIGITS} digits",
            )


def _exponent(sign: str, digits: str, field: str, text: str) -> int:
    significant = digits.lstrip("0")
    if len(significant) > len(str(MAX_EXPONENT)) or int(significant or "0") > MAX_EXPONENT:
        raise ExponentLimitError(
            field,
            text,
            said("{value} has an exponent beyond ±{limit}", value=shown(text), limit=MAX_EXPONENT),
            f"exponent ±{MAX_EXPONENT}",
        )
    value = int(significant or "0")
    return -value if sign == "-" else value


def _not_a_number(field: str, text: str, allow_percent: bool, underscore: bool = False) -> NotANumberError:
    if underscore and allow_percent:
        problem = said("{value} is not a number (write digits without '_') (use a fraction like 3/4 or a decimal "
                       "like 0.75 or a percentage like 75%)", value=shown(text))
    elif underscore:
        problem = said("{value} is not a number (write digits without '_') (use a fraction like 3/4 or a decimal "
                       "like 0.75)", value=shown(text))
    elif allow_percent:
        problem = said("{value} is not a number (use a fraction like 3/4 or a decimal like 0.75 or a percentage "
                       "like 75%)", value=shown(text))
    else:
        problem = said("{value} is not a number (use a fraction like 3/4 or a decimal like 0.75)", value=shown(text))
    return NotANumberError(field, text, problem)


def read_number(
    value,
    field: str,
    *,
    allow_percent: bool = False,
    allow_decimal_comma: bool = False,
) -> ReadNumber:
    """Read one number exactly, refusing (with a :class:`NumberInputError`) anything beyond the limits.

    ``value`` may be text, an int, a float (read as the decimal it prints as: ``0.1`` is 1/10) or a
    Fraction. Signs are kept: range checks belong to the caller (or :func:`read_probability`).
    """
    if isinstance(value, bool):
        raise NotANumberError(field, str(value), said("{value} is not a number", value=repr(value)))
    if isinstance(value, Fraction):
        return ReadNumber(_check_exact_size(value, field, "a fraction"), "fraction")
    if isinstance(value, int):
        if value.bit_length() > 4 * MAX_RESULT_DIGITS:  # far above the bound: no str() of a huge int
            raise ValueTooLargeError(
                field, "", said("a whole number of more than {digits} digits", digits=MAX_RESULT_DIGITS),
                f"{MAX_RESULT_DIGITS} digits",
            )
        return ReadNumber(_check_exact_size(Fraction(value), field, "a whole number"), "integer")
    if isinstance(value, float):
        if not math.isfinite(value):
            raise NonFiniteNumberError(field, repr(value), said("{value} is not finite", value=repr(value)))
        text = repr(value)
    else:
        text = str(value)
    if len(text) > MAX_TEXT_LENGTH:
        raise TextTooLongError(
            field,
            text,
            said("{value} is longer than {limit} characters", value=shown(text), limit=MAX_TEXT_LENGTH),
            f"{MAX_TEXT_LENGTH} characters",
        )
    cleaned = text.strip()
    if not cleaned:
        raise NotANumberError(field, text, said("the value is empty"))
    ascii_text = _ascii_digits(cleaned)
    if ascii_text is None:
        raise _not_a_number(field, text, allow_percent)
    cleaned = ascii_text.lower()
    if _NON_FINITE.fullmatch(cleaned):
        raise NonFiniteNumberError(field, text, said("{value} is not finite", value=shown(text)))
    if "_" in cleaned:
        raise _not_a_number(field, text, allow_percent, underscore=True)

    percent = False
    if allow_percent and (match := _PERCENT.fullmatch(cleaned)):
        cleaned, percent = match.group(1), True

    if (match := _FRACTION.fullmatch(cleaned)) and not percent:
        sign, num, den = match.groups()
        _check_digit_runs((num, den), field, text)
        if int(den) == 0:
            raise ZeroDenominatorError(field, text, said("{value} divides by zero", value=shown(text)))
        number = Fraction(int(num), int(den))
        return ReadNumber(_check_exact_size(-number if sign == "-" else number, field, text), "fraction")

    pattern = _COMMA_DECIMAL if allow_decimal_comma and "," in cleaned else _DECIMAL
    match = pattern.fullmatch(cleaned)
    if not match or not (match.group(2) or match.group(3)):  # at least one digit before or after the point
        raise _not_a_number(field, text, allow_percent)
    sign, whole, part, exp_sign, exp_digits = match.groups()
    _check_digit_runs((whole, part), field, text)
    exponent = _exponent(exp_sign, exp_digits, field, text) if exp_digits is not None else 0
    part = part or ""
    shift = exponent - len(part) - (2 if percent else 0)
    mantissa = int((whole or "") + part or "0")
    # |shift| <= MAX_EXPONENT + MAX_DIGITS + 2: the power below has at most ~222 digits.
    number = Fraction(mantissa * 10**shift) if shift >= 0 else Fraction(mantissa, 10**-shift)
    if sign == "-":
        number = -number
    has_point = match.group(3) is not None or exp_digits is not None
    form = "percent" if percent else ("decimal" if has_point else "integer")
    return ReadNumber(_check_exact_size(number, field, text), form)


def parse_number(value, field: str, **options) -> Fraction:
    """:func:`read_number`'s exact value."""
    return read_number(value, field, **options).value


def parse_probability(value, field: str, **options) -> Fraction:
    """A number from 0 to 1 inclusive, exactly."""
    number = parse_number(value, field, **options)
    if not 0 <= number <= 1:
        raise OutOfRangeError(field, str(value), said("{value} is outside 0 to 1", value=_value_text(number)), "0 to 1")
    return number


def parse_whole_number(value, field: str, low: int, high: int, *, any_spelling: bool = False) -> int:
    """A whole number from ``low`` to ``high``. Text must be written with digits only (``12``) unless
    ``any_spelling`` allows every spelling whose value is whole (``1.2e1``, ``24/2``)."""
    if isinstance(value, float) and math.isfinite(value) and value.is_integer():
        value = int(value)
    try:
        read = read_number(value, field)
    except NotANumberError:
        raise NotANumberError(
            field, str(value), said("{value} is not a whole number", value=shown(str(value).strip()))
        ) from None
    if read.value.denominator != 1 or (read.form != "integer" and not any_spelling):
        raise NotANumberError(field, str(value), said("{value} is not a whole number", value=shown(str(value).strip())))
    number = int(read.value)
    if not low <= number <= high:
        problem = said("{value} is outside {low} to {high}", value=_value_text(number), low=low, high=high)
        raise OutOfRangeError(field, str(value), problem, f"{low} to {high}")
    return number


def to_fraction(value) -> Fraction:
    """A value the lab made itself (a slider's float ``0.35``, a whole number, a Fraction) as the decimal it
    shows, exactly: a float is read from its shortest decimal (``repr``), not from its binary value."""
    if isinstance(value, Fraction):
        return value
    if isinstance(value, float):
        return Fraction(repr(value))
    return Fraction(value)


def _value_text(value) -> str:
    """A read value for a message (at most 120 digits above and below the line: always short enough)."""
    value = Fraction(value)
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"
