"""The pages' one path to a figure (lab.views.common.figure) is cached by the arguments and their types."""

from fractions import Fraction as F

from lab.views.common import figure


def test_same_arguments_share_one_figure_and_equal_values_of_other_types_do_not():
    exact = figure("binomial_bars", ("B", "C"), (F(1, 2), F(1, 2)), None, "bar")
    again = figure("binomial_bars", ["B", "C"], [F(1, 2), F(1, 2)], None, "bar")  # lists arrive as tuples
    assert again is exact
    decimal = figure("binomial_bars", ("B", "C"), (0.5, 0.5), None, "bar")  # 0.5 == 1/2 and hashes alike
    assert decimal is not exact
    # the bar labels tell them apart: an exact fraction, a decimal
    assert exact.to_dict()["data"][0]["text"] == ["1/2", "1/2"]
    assert decimal.to_dict()["data"][0]["text"] == ["0.5", "0.5"]
