"""What the bar predictor may send (lab/models/bars.py): heights from 0 to 1, one per bar, snapped to 0.01; anything
else is refused with a message naming the bar and the problem."""

from __future__ import annotations

import json

import pytest

from lab.models.bars import BarsRefused, read_bars

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
