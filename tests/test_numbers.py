"""The one number reader (lab/core/numbers.py): exact values, every refusal named, limits checked on the text."""

from __future__ import annotations

import time
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from lab.core.errors import LabInputError
from lab.core.numbers import (
    MAX_DIGITS,
    MAX_EXPONENT,
    MAX_RESULT_DIGITS,
    MAX_TEXT_LENGTH,
    ExponentLimitError,
    NonFiniteNumberError,
    NotANumberError,
    NumberInputError,
    OutOfRangeError,
    TextTooLongError,
    TooManyDigitsError,
    ValueTooLargeError,
    ZeroDenominatorError,
    parse_number,
    parse_probability,
    parse_whole_number,
    read_number,
)


@pytest.mark.parametrize(
    "text, value, form",
    [
        ("3/4", F(3, 4), "fraction"),
        (" 3 / 4 ", F(3, 4), "fraction"),
        ("-1/4", F(-1, 4), "fraction"),
        ("0.75", F(3, 4), "decimal"),
        (".75", F(3, 4), "decimal"),
        ("75.", F(75), "decimal"),
        ("+0.5", F(1, 2), "decimal"),
        ("7.5e-1", F(3, 4), "decimal"),
        ("1E-3", F(1, 1000), "decimal"),
        ("1e+2", F(100), "decimal"),
        ("2", F(2), "integer"),
        ("\u00a00.1\t\n", F(1, 10), "decimal"),  # any surrounding whitespace, a no-break space too
        ("\u0660.\u0667\u0665", F(3, 4), "decimal"),  # Arabic-Indic digits are the digits 0, 7, 5 (as int() reads them)
        ("\uff13/\uff14", F(3, 4), "fraction"),  # full-width 3/4
        ("1e-0000000000000000000000003", F(1, 1000), "decimal"),  # leading zeros of an exponent are nothing
        (0.1, F(1, 10), "decimal"),  # a float is the decimal it prints as
        (3, F(3), "integer"),
        (F(2, 7), F(2, 7), "fraction"),
    ],
)
def test_spellings_read_exactly(text, value, form):
    read = read_number(text, "x")
    assert read.value == value and read.form == form


def test_percent_and_decimal_comma_only_where_allowed():
    assert read_number("75%", "x", allow_percent=True).value == F(3, 4)
    assert read_number("75 %", "x", allow_percent=True).form == "percent"
    assert read_number("0,75", "x", allow_decimal_comma=True).value == F(3, 4)
    with pytest.raises(NotANumberError):
        read_number("75%", "x")
    with pytest.raises(NotANumberError):
        read_number("0,75", "x")


@pytest.mark.parametrize(
    "text, error, limit_words",
    [
        ("abc", NotANumberError, "not a number"),
        ("", NotANumberError, "empty"),
        ("1//2", NotANumberError, "not a number"),
        ("1/2/3", NotANumberError, "not a number"),
        ("0.7.5", NotANumberError, "not a number"),
        (".", NotANumberError, "not a number"),
        ("e5", NotANumberError, "not a number"),
        ("1_000", NotANumberError, "'_'"),
        ("1e-1_000_000", NotANumberError, "'_'"),
        ("²", NotANumberError, "not a number"),  # a digit-like symbol that int() refuses
        ("nan", NonFiniteNumberError, "not finite"),
        ("-Infinity", NonFiniteNumberError, "not finite"),
        (float("inf"), NonFiniteNumberError, "not finite"),
        ("1/0", ZeroDenominatorError, "divides by zero"),
        ("1e-99999999", ExponentLimitError, f"±{MAX_EXPONENT}"),
        ("1e-20000000", ExponentLimitError, f"±{MAX_EXPONENT}"),
        (f"1e{MAX_EXPONENT + 1}", ExponentLimitError, f"±{MAX_EXPONENT}"),
        ("1" * (MAX_DIGITS + 1), TooManyDigitsError, f"{MAX_DIGITS} digits"),
        ("1/" + "3" * (MAX_DIGITS + 1), TooManyDigitsError, f"{MAX_DIGITS} digits"),
        ("7" * 1_000_000, TextTooLongError, f"{MAX_TEXT_LENGTH} characters"),
        # 120 digits after the point and an exponent of -100: a denominator of 10**220
        ("0." + "1" * MAX_DIGITS + "e-100", ValueTooLargeError, f"{MAX_RESULT_DIGITS} digits"),
        ("9" * 100 + "e100", ValueTooLargeError, f"{MAX_RESULT_DIGITS} digits"),
        (True, NotANumberError, "not a number"),
    ],
)
def test_refusals_are_named_with_field_and_limit(text, error, limit_words):
    with pytest.raises(error) as info:
        read_number(text, "the field")
    message = str(info.value)
    assert message.startswith("the field: ") and limit_words in message
    assert len(message) < 200  # never the whole value
    assert isinstance(info.value, LabInputError) and info.value.field == "the field"
    if isinstance(info.value, (TextTooLongError, TooManyDigitsError, ExponentLimitError, ValueTooLargeError)):
        assert info.value.limit


def test_limits_hold_at_their_edges():
    assert parse_number(f"1e-{MAX_EXPONENT}", "x") == F(1, 10**MAX_EXPONENT)
    assert parse_number("1" * MAX_DIGITS, "x") == int("1" * MAX_DIGITS)
    # the largest accepted value written back as numerator/denominator is accepted again (links round-trip)
    value = parse_number("0." + "3" * (MAX_RESULT_DIGITS - 1), "x")  # denominator 10**119: 120 digits
    assert len(str(value.denominator)) == MAX_RESULT_DIGITS
    assert parse_number(f"-{value.numerator}/{value.denominator}", "x") == -value
    with pytest.raises(ValueTooLargeError):  # one more digit: a 121-digit denominator
        parse_number("0." + "3" * MAX_RESULT_DIGITS, "x")


def test_probability_and_whole_number():
    assert parse_probability("3/4", "p") == F(3, 4)
    with pytest.raises(OutOfRangeError, match="p: 5/4 is outside 0 to 1"):
        parse_probability("5/4", "p")
    assert parse_whole_number("12", "n", 1, 26) == 12
    assert parse_whole_number(12.0, "n", 1, 26) == 12
    assert parse_whole_number("24/2", "n", 1, 26, any_spelling=True) == 12
    with pytest.raises(NotANumberError, match="not a whole number"):
        parse_whole_number("1.2e1", "n", 1, 26)  # digits only unless any spelling is allowed
    with pytest.raises(NotANumberError, match="not a whole number"):
        parse_whole_number("2.5", "n", 1, 26, any_spelling=True)
    with pytest.raises(OutOfRangeError, match="n: 30 is outside 1 to 26"):
        parse_whole_number("30", "n", 1, 26)
    with pytest.raises(NonFiniteNumberError):
        parse_whole_number("inf", "count", 1, 30)
    with pytest.raises(ValueTooLargeError):
        parse_whole_number(10**5000, "n", 1, 26)  # an int far beyond the limit is refused without str()


NUMBERISH = st.text(alphabet="0123456789.,/eE+-_ %naif\u0660\u0665\uff11 \t", max_size=60)


@settings(max_examples=1500, deadline=None)
@given(st.one_of(NUMBERISH, st.text(max_size=300)))
def test_any_text_is_read_or_refused_by_name(text):
    """Every string up to 300 characters: an exact value or a NumberInputError, never anything else."""
    for options in ({}, {"allow_percent": True, "allow_decimal_comma": True}):
        try:
            value = parse_number(text, "field", **options)
        except NumberInputError as exc:
            assert str(exc).startswith("field: ") and len(str(exc)) < 300
        else:
            assert isinstance(value, F)
            assert abs(value.numerator) < 10**MAX_RESULT_DIGITS and value.denominator < 10**MAX_RESULT_DIGITS


@settings(max_examples=300, deadline=None)
@given(
    mantissa=st.text(alphabet="0123456789", min_size=1, max_size=200),
    sign=st.sampled_from(["", "-", "+"]),
    exponent=st.integers(min_value=0, max_value=10**12),
    underscores=st.booleans(),
)
def test_huge_exponents_are_refused_without_being_computed(mantissa, sign, exponent, underscores):
    """A sanity bound, not a benchmark: building 10**exponent for exponents up to 10**12 would take hours;
    each call here must finish in well under a second of CPU (it takes microseconds)."""
    digits = f"{exponent:_}" if underscores else str(exponent)
    text = f"{mantissa}e{sign}{digits}"
    start = time.process_time()
    try:
        parse_number(text, "x")
    except NumberInputError:
        pass
    assert time.process_time() - start < 0.5
