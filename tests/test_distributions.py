"""Parsing and validating distributions: exact values, every error type, spec files, float checks."""

import json
from fractions import Fraction as F

import numpy as np
import pytest

from lab.core.distributions import (
    FLOAT_SUM_TOLERANCE,
    Distribution,
    DuplicateTokenError,
    EmptyDistributionError,
    InvalidValueError,
    LabInputError,
    NegativeValueError,
    NonFiniteValueError,
    SpecFileError,
    SumError,
    TokenMismatchError,
    TokenNameError,
    ValueAboveOneError,
    check_float,
    check_same_tokens,
    from_pairs,
    load_spec_file,
    parse_spec,
    parse_value,
)

# --- single values ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    "text, expected",
    [
        ("1/10", F(1, 10)),
        ("0.1", F(1, 10)),  # the decimal typed, not the binary float 0.1000000000000000055...
        ("0.75", F(3, 4)),
        ("3/4", F(3, 4)),
        ("1", F(1)),
        ("0", F(0)),
        ("1e-3", F(1, 1000)),
        ("  2/8 ", F(1, 4)),
        ("0.3333335", F(3333335, 10_000_000)),
        (0.1, F(1, 10)),  # a Python float is read as the decimal it prints as
        (3, F(3)),
        (F(2, 7), F(2, 7)),
    ],
)
def test_parse_value_is_exact(text, expected):
    assert parse_value(text) == expected


@pytest.mark.parametrize(
    "text, error",
    [
        ("nan", NonFiniteValueError),
        ("NaN", NonFiniteValueError),
        ("inf", NonFiniteValueError),
        ("-inf", NonFiniteValueError),
        ("Infinity", NonFiniteValueError),
        (float("nan"), NonFiniteValueError),
        (float("inf"), NonFiniteValueError),
        ("abc", InvalidValueError),
        ("1/0", InvalidValueError),
        ("0/0", InvalidValueError),
        ("", InvalidValueError),
        ("1//2", InvalidValueError),
        (True, InvalidValueError),
        ("1e99999999", InvalidValueError),  # refused before 10**99999999 is ever built
        ("1e-2000", InvalidValueError),
    ],
)
def test_parse_value_errors_name_the_token(text, error):
    with pytest.raises(error) as info:
        parse_value(text, token="tok")
    assert "'tok'" in str(info.value)
    assert info.value.token == "tok"
    assert isinstance(info.value, LabInputError)


# --- token=value lists ------------------------------------------------------------------------


def test_parse_spec_worked_example():
    dist = parse_spec("A=1/10,B=3/5,C=3/10")
    assert dist.tokens == ("A", "B", "C")
    assert dist.values == (F(1, 10), F(3, 5), F(3, 10))
    assert dist["B"] == F(3, 5)
    assert len(dist) == 3
    assert dist.total() == 1
    # float64 of 1/10, 3/5, 3/10 (correctly rounded)
    assert dist.as_array().tolist() == [0.1, 0.6, 0.3]
    assert dist.as_array().dtype == np.float64


def test_parse_spec_mixed_forms_spaces_and_new_lines():
    # 0.25 + 1/2 + 1/4 = 1
    dist = parse_spec(" x = 0.25 ,\n y=1/2\n z = 1/4 ")
    assert dist.as_dict() == {"x": F(1, 4), "y": F(1, 2), "z": F(1, 4)}


@pytest.mark.parametrize(
    "spec, error, token",
    [
        ("A=-1/2,B=3/2", NegativeValueError, "A"),
        ("A=1/2,B=-0", None, None),  # -0 is zero, not negative: but then the sum is 1/2
        ("A=nan,B=1", NonFiniteValueError, "A"),
        ("A=1/2,B=inf", NonFiniteValueError, "B"),
        ("A=1/2,B=half", InvalidValueError, "B"),
        ("A=1/0,B=1", InvalidValueError, "A"),
        ("A=1/2,A=1/2", DuplicateTokenError, "A"),
        ("A=1/2,B", InvalidValueError, "B"),
        ("=1/2,B=1/2", TokenNameError, None),
        ("A=3/2,B=0", ValueAboveOneError, "A"),
    ],
)
def test_parse_spec_errors(spec, error, token):
    if error is None:  # the "-0" case: 1/2 + 0 = 1/2 is not 1
        with pytest.raises(SumError):
            parse_spec(spec, name="p")
        return
    with pytest.raises(error) as info:
        parse_spec(spec, name="p")
    message = str(info.value)
    assert message.startswith("p: ")
    if token is not None:
        assert f"'{token}'" in message
        assert info.value.token == token


@pytest.mark.parametrize("spec", ["", ",", " , ,", "\n"])
def test_empty_lists(spec):
    with pytest.raises(EmptyDistributionError):
        parse_spec(spec)


def test_sum_must_be_exactly_one():
    # 1/2 + 1/3 = 5/6
    with pytest.raises(SumError, match="5/6"):
        parse_spec("A=1/2,B=1/3")
    # 0.1 + 0.2 + 0.7 = 1 exactly as decimals (in binary floats it would not be)
    assert parse_spec("A=0.1,B=0.2,C=0.7").total() == 1


def test_value_above_one_message_with_huge_value_has_no_overflow():
    # 1e400 (beyond float64) is now refused by the number limits before any arithmetic; the largest
    # exponent the limits allow still gives a short message in scientific form.
    with pytest.raises(ValueAboveOneError, match="1e\\+100"):
        parse_spec("A=1e100,B=0")
    with pytest.raises(InvalidValueError, match="exponent beyond ±100"):
        parse_spec("A=1e400,B=0")


def test_normalize_is_explicit():
    # weights 1 and 3 sum to 4: normalised (1/4, 3/4)
    dist = parse_spec("A=1,B=3", normalize=True)
    assert dist.values == (F(1, 4), F(3, 4))
    with pytest.raises(ValueAboveOneError):
        parse_spec("A=1,B=3")  # never normalised silently
    with pytest.raises(SumError, match="every value is zero"):
        parse_spec("A=0,B=0", normalize=True)
    with pytest.raises(NegativeValueError):
        parse_spec("A=-1,B=3", normalize=True)
    # already normalised stays as it is
    assert parse_spec("A=1/3,B=2/3", normalize=True).values == (F(1, 3), F(2, 3))


def test_check_sum_false_leaves_the_sum_to_the_float_path():
    dist = parse_spec("A=1/3,B=1/3", check_sum=False)
    assert dist.total() == F(2, 3)


def test_from_pairs_accepts_numbers_and_text():
    dist = from_pairs([("a", "1/4"), ("b", 0.25), ("c", F(1, 2))])
    assert dist.values == (F(1, 4), F(1, 4), F(1, 2))


def test_distribution_lengths_must_match():
    with pytest.raises(ValueError):
        Distribution(("A", "B"), (F(1),))


# --- token sets ---------------------------------------------------------------------------------


def test_check_same_tokens_reorders_q_to_p():
    p = parse_spec("A=1/2,B=1/4,C=1/4")
    q = parse_spec("C=1/8,A=1/8,B=3/4")
    aligned = check_same_tokens(p, q)
    assert aligned.tokens == ("A", "B", "C")
    assert aligned.values == (F(1, 8), F(3, 4), F(1, 8))


def test_check_same_tokens_names_the_odd_token():
    p = parse_spec("A=1/2,B=1/2")
    with pytest.raises(TokenMismatchError, match="'B' is in p but not in q") as info:
        check_same_tokens(p, parse_spec("A=1/2,C=1/2"))
    assert info.value.token == "B"
    with pytest.raises(TokenMismatchError, match="'C' is in q but not in p"):
        check_same_tokens(p, parse_spec("A=1/2,B=1/4,C=1/4"))


# --- spec files ---------------------------------------------------------------------------------


def test_spec_files_json_csv_toml(tmp_path):
    (tmp_path / "p.json").write_text(json.dumps({"A": "1/10", "B": 0.6, "C": "3/10"}))
    (tmp_path / "p.csv").write_text("token,value\nA,1/10\nB,0.6\n\nC,3/10\n")
    (tmp_path / "bare.csv").write_text("A,1/10\nB,0.6\nC,3/10\n")
    (tmp_path / "p.toml").write_text('A = "1/10"\nB = 0.6\nC = "3/10"\n')
    for name in ("p.json", "p.csv", "bare.csv", "p.toml"):
        dist = parse_spec(str(tmp_path / name))
        # 0.6 in the file is read as the decimal 3/5, not the binary float
        assert dist.as_dict() == {"A": F(1, 10), "B": F(3, 5), "C": F(3, 10)}, name


@pytest.mark.parametrize(
    "name, text, fragment",
    [
        ("list.json", "[1, 2]", "JSON object"),
        ("broken.json", "{", "not valid json"),
        ("broken.toml", "A = ", "not valid toml"),
        ("nested.toml", "[A]\nx = 1\n", "'A' must map to a single value"),
        ("rows.csv", "A,1/2,extra\n", "token,value"),
        ("empty.csv", "token,value\n", "empty"),
        ("p.txt", "A=1", None),  # not a spec file suffix: read as a token=value list named p.txt
    ],
)
def test_bad_spec_files(tmp_path, name, text, fragment):
    path = tmp_path / name
    path.write_text(text)
    if fragment is None:
        with pytest.raises(LabInputError):
            parse_spec(str(path))
        return
    with pytest.raises(LabInputError, match=fragment) as info:
        load_spec_file(path)
    assert name in str(info.value)


def test_missing_and_unsupported_files(tmp_path):
    with pytest.raises(SpecFileError, match="cannot read"):
        parse_spec(str(tmp_path / "nowhere.json"))
    (tmp_path / "p.yaml").write_text("A: 1")
    with pytest.raises(SpecFileError, match="unsupported file type"):
        load_spec_file(tmp_path / "p.yaml")


# --- float vectors ----------------------------------------------------------------------------


def test_check_float_accepts_within_stated_tolerance():
    check_float(np.array([0.7, 0.2, 0.1]))  # sums to 0.9999999999999999 in float64
    check_float(np.array([0.5, 0.5 + FLOAT_SUM_TOLERANCE / 2]))
    with pytest.raises(SumError, match="tolerance"):
        check_float(np.array([0.5, 0.5 + 2 * FLOAT_SUM_TOLERANCE]))


@pytest.mark.parametrize(
    "values, error, token",
    [
        ([0.5, np.nan, 0.5], NonFiniteValueError, "b"),
        ([0.5, 0.5, np.inf], NonFiniteValueError, "c"),
        ([1.5, -0.5, 0.0], NegativeValueError, "b"),
        ([0.2, 0.2, 0.2], SumError, None),
    ],
)
def test_check_float_errors_name_the_token(values, error, token):
    with pytest.raises(error) as info:
        check_float(np.array(values), tokens=("a", "b", "c"), name="q")
    assert str(info.value).startswith("q: ")
    if token:
        assert f"'{token}'" in str(info.value)


def test_check_float_anonymous_tokens_and_empty():
    with pytest.raises(NegativeValueError, match="'#1'"):
        check_float(np.array([1.5, -0.5]))
    with pytest.raises(EmptyDistributionError):
        check_float(np.array([]))


def test_check_float_needs_a_vector():
    with pytest.raises(InvalidValueError, match="1-D"):
        check_float(np.full((2, 2), 0.25), name="p")
    with pytest.raises(InvalidValueError, match="1-D"):
        check_float(np.float64(1.0) * np.ones(()))
