"""The Exercises page draws its bars with the residual charts (one figure per concept), tested without a
browser on an exercise's values."""

from fractions import Fraction as F

from lab.charts.palette import COLORS
from lab.charts.residual import pq_bars, prediction_vs_residual


def test_pq_figure_bars_colours_and_exact_labels():
    fig = pq_bars(("A", "B", "C"), (F(1, 10), F(3, 5), F(3, 10)), (F(1, 2), F(3, 10), F(1, 5)))
    p, q = fig.data
    assert list(p.x) == ["A", "B", "C"] and list(p.y) == [0.1, 0.6, 0.3] and list(q.y) == [0.5, 0.3, 0.2]
    assert list(p.text) == ["1/10", "3/5", "3/10"] and list(q.text) == ["1/2", "3/10", "1/5"]
    assert p.marker.color == COLORS["p"] and q.marker.color == COLORS["q"]
    assert q.marker.pattern.fillmode == "overlay"  # the pattern sits on the colour, never replaces it
    assert fig.layout.yaxis.range[1] >= 0.6


def test_prediction_figure_shows_prediction_beside_truth():
    fig = prediction_vs_residual(("A", "B", "C"), (0.0, 0.5, 0.5), (F(0), F(3, 4), F(1, 4)))
    mine, truth = fig.data
    assert list(mine.y) == [0.0, 0.5, 0.5] and list(truth.y) == [0.0, 0.75, 0.25]
    assert list(truth.text) == ["0", "3/4", "1/4"]
    assert mine.marker.color == COLORS["prediction"] and truth.marker.color == COLORS["residual"]

