"""What the bar predictor may send (lab/models/bars.py): heights from 0 to 1, one per bar, snapped to 0.01; anything
else is refused with a message naming the bar and the problem."""

from __future__ import annotations

import json
from fractions import Fraction

import pytest

from lab.core.formatting import box_text
from lab.core.numbers import parse_number
from lab.models.bars import BarsRefused, read_bars, read_boxes

LABELS = ("r(B)", "r(C)")


def test_heights_are_read_and_snapped_to_a_hundredth():
    assert read_bars([0.6, 0.4], LABELS) == [0.6, 0.4]
    assert read_bars([0, 1], LABELS) == [0.0, 1.0]
    assert read_bars([0.333, 0.6666], LABELS) == [0.33, 0.67]  # 33.3 -> 33, 66.66 -> 67 hundredths


@pytest.mark.parametrize(
    "payload, words",
    [
        ([0.5], "1 heights sent for 2 bars"),
        ([0.5, 0.5, 0.5], "3 heights sent for 2 bars"),
        ([0.5, 1.5], "height of r(C), '1.5', is outside [0, 1]"),
        ([-0.01, 0.5], "height of r(B), '-0.01', is outside [0, 1]"),
        ([float("nan"), 0.5], "height of r(B) is nan, not a finite number"),
        ([0.5, float("inf")], "height of r(C) is inf, not a finite number"),
        (["0.5", 0.5], "height of r(B) is not a number (the text '0.5')"),
        ([True, 0.5], "height of r(B) is not a number (true)"),
        ([None, 0.5], "height of r(B) is not a number (nothing)"),
        ("0.6,0.4", "expected a list of 2 heights, got the text '0.6,0.4'"),
        ({"bars": [0.6, 0.4]}, "expected a list of 2 heights, got an object with 1 fields"),
        (None, "expected a list of 2 heights, got nothing"),
        (0.6, "expected a list of 2 heights, got float"),
    ],
)
def test_refusals_name_the_bar_and_the_problem(payload, words):
    with pytest.raises(BarsRefused) as refused:
        read_bars(payload, LABELS)
    assert words in str(refused.value)


def test_a_megabyte_is_refused_without_being_repeated():
    text = "9" * 1_000_000
    with pytest.raises(BarsRefused) as refused:
        read_bars(text, LABELS)
    assert "(1,000,000 characters)" in str(refused.value) and len(str(refused.value)) < 200
    long_list = json.loads("[" + ",".join(["0.5"] * 200_000) + "]")  # about 800 kB of JSON
    with pytest.raises(BarsRefused) as refused:
        read_bars(long_list, LABELS)
    assert "200,000 heights sent for 2 bars" in str(refused.value)


def test_the_boxes_text_is_passed_on_as_typed_and_an_empty_box_as_nothing():
    fields = ("r(B)", "r(C)", "Z")
    assert read_boxes(["0.75", " 1/4 ", None], fields) == ["0.75", "1/4", None]
    assert read_boxes(["", "   ", "x" * 40], fields) == [None, None, "x" * 40]  # read as numbers later, by the class


@pytest.mark.parametrize(
    ("payload", "words"),
    [
        ("0.75, 0.25", "expected a list of 2 texts, got the text"),
        ({"r(B)": "0.75"}, "got an object with 1 fields"),
        (["0.75"], "1 texts sent for 2 boxes"),
        (["0.75", 0.25], "the box for r(C) sent float, not text"),
        (["0.75", ["1"]], "the box for r(C) sent a list of 1 items, not text"),
        (["0.75", "1" * 41], "the box for r(C) holds 41 characters (at most 40)"),
    ],
)
def test_a_box_refusal_names_the_box_and_the_problem(payload, words):
    with pytest.raises(BarsRefused) as refused:
        read_boxes(payload, LABELS)
    assert str(refused.value).startswith("Not submitted: ") and words in str(refused.value)


@pytest.mark.parametrize(
    ("value", "text"),
    [
        (Fraction(2, 5), "0.40"),
        (Fraction(3, 4), "0.75"),
        (Fraction(4321, 10_000), "0.4321"),
        (Fraction(1, 20), "0.05"),
        (Fraction(0), "0.00"),
        (Fraction(1), "1.00"),
        (Fraction(1, 3), "1/3"),
        (Fraction(1, 100_000), "1/100000"),
    ],
)
def test_a_saved_value_is_shown_in_its_box_as_text_that_reads_back_exactly(value, text):
    assert box_text(value) == text
    assert parse_number(text, "a box") == value  # the class's one reader gets the same value back
