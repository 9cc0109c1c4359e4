"""The class's result line in plain words (no "50% of the class on every value (r(B): 100% …)")."""

from fractions import Fraction as F

import pytest

from lab.classroom.activities import predict_spec, summarize_predictions
from lab.core.formatting import share_words


@pytest.mark.parametrize(
    ("count", "total", "words", "subject"),
    [
        (2, 4, "half", "half the class"),
        (1, 3, "a third", "a third of the class"),
        (4, 6, "two thirds", "two thirds of the class"),
        (30, 40, "three quarters", "three quarters of the class"),
        (1, 4, "a quarter", "a quarter of the class"),
        (5, 5, "all", "everyone"),
        (0, 5, "none", "nobody"),
        (3, 7, "3 of 7", "3 of 7 students"),
        (0, 0, "none", "nobody"),
    ],
)
def test_share_words(count, total, words, subject):
    assert share_words(count, total) == words
    assert share_words(count, total, of_class=True) == subject


def test_the_worked_example_line_reads_as_words():
    spec = predict_spec("worked-example")  # exact r(B) 3/4, r(C) 1/4
    both = (F(3, 4), F(1, 4))
    only_b = (F(3, 4), F(1, 2))  # C off by 1/4
    summary = summarize_predictions(spec, [both, only_b])
    assert (
        summary.close_sentence()
        == "Half the class got both bars within 0.05 of the exact answer; r(B): all, r(C): half."
    )
    summary = summarize_predictions(spec, [both, both, only_b, (F(0), F(1))])
    assert summary.close_sentence() == (
        "Half the class got both bars within 0.05 of the exact answer; r(B): three quarters, r(C): half."
    )


def test_a_scenario_line_names_its_values():
    spec = predict_spec("bernoulli-residual")  # r(A) 0, r(B) 3/4, r(C) 1/4, Z 2/5
    summary = summarize_predictions(spec, [(F(0), F(3, 4), F(1, 4), F(3, 5))] * 3)
    assert summary.close_sentence() == (
        "Nobody got all 4 values within 0.05 of the exact answer; r(A): all, r(B): all, r(C): all, Z: none."
    )
