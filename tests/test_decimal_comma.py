"""Numbers as a language with the decimal comma writes them (Spanish, German, French, Portuguese): 0,75 read as
3/4 where the caller allows it, entries of a list then separated by ';', never a comma read as a separator."""

from fractions import Fraction

import pytest

from lab.core.distributions import InvalidValueError, LabInputError, parse_spec_text, parse_value
from lab.core.formatting import decimal_text
from lab.i18n import LANGUAGES


def test_the_languages_that_write_the_decimal_comma():
    assert [code for code, lang in LANGUAGES.items() if lang.decimal_comma] == ["es", "de", "fr", "pt-BR"]


@pytest.mark.parametrize(("text", "value"), [("0,25", Fraction(1, 4)), ("0.25", Fraction(1, 4)),
                                             ("1/4", Fraction(1, 4)), (",5", Fraction(1, 2)),
                                             ("1,5e-3", Fraction(3, 2000))])
def test_a_box_in_a_decimal_comma_language_reads_both_marks_and_fractions(text, value):
    assert parse_value(text, "x", decimal_comma=True) == value


def test_a_box_in_a_decimal_point_language_refuses_the_comma():
    with pytest.raises(LabInputError):
        parse_value("0,25", "x")


def test_a_list_in_a_decimal_comma_language_is_separated_by_semicolons():
    dist = parse_spec_text("A=0,1; B=0,6\nC=0,3", decimal_comma=True)
    assert dist.tokens == ("A", "B", "C") and dist.values == (Fraction(1, 10), Fraction(3, 5), Fraction(3, 10))
    assert parse_spec_text("A=1/10;B=3/5;C=3/10", decimal_comma=True).values == dist.values


def test_a_comma_between_entries_is_never_read_as_two_numbers():
    with pytest.raises(InvalidValueError) as error:
        parse_spec_text("A=0,5,B=0,5", name="p", decimal_comma=True)
    assert "token 'A'" in str(error.value) and "';'" in str(error.value)
    with pytest.raises(LabInputError):  # and 0,5 and 0,5 are not one number: 0,5,5 is refused, not 0.55
        parse_spec_text("A=0,5,5;B=0,45", decimal_comma=True)


def test_decimals_are_shown_with_the_language_s_mark():
    assert decimal_text(Fraction(3, 4), decimal_comma=True) == "0,75"
    assert decimal_text(Fraction(3, 4)) == "0.75"
    assert decimal_text(1e-6, decimal_comma=True) == "1e-06"
