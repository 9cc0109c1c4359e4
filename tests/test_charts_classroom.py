"""The live class's chart: every prediction as a dot, the class mean as a line across its box, the exact
answer only when given (after the reveal), drawn in the palette's colours."""

from fractions import Fraction

from lab.charts import palette
from lab.charts.classroom import class_predictions_figure


def traces(fig, name):
    return [t for t in fig.data if t.name == name]


def test_predictions_means_and_exact_answer():
    fields, values = ("r(B)", "r(C)"), ((0.75, 0.7, 0.3), (0.25, 0.3, 0.1))
    means = (1.75 / 3, 0.65 / 3)
    before = class_predictions_figure(fields, values, means)
    boxes = traces(before, "predictions")
    assert [list(b.y) for b in boxes] == [[0.75, 0.7, 0.3], [0.25, 0.3, 0.1]]
    assert {b.marker.color for b in boxes} == {palette.PREDICTION}
    mean_line = traces(before, "class mean")[0]
    assert [y for y in mean_line.y if y is not None] == [means[0], means[0], means[1], means[1]]
    assert mean_line.line.color == palette.TARGET
    assert not traces(before, "exact answer")
    after = class_predictions_figure(fields, values, means, (Fraction(3, 4), Fraction(1, 4)))
    line, markers = traces(after, "exact answer")
    assert [y for y in line.y if y is not None] == [0.75, 0.75, 0.25, 0.25]
    assert list(markers.text) == ["exact 3/4", "exact 1/4"] and markers.marker.color == palette.CORRECTION
    assert list(after.layout.xaxis.ticktext) == ["r(B)", "r(C)"]


def test_no_predictions_yet():
    fig = class_predictions_figure(("r(A)", "Z"), ((), ()), (None, None))
    assert not traces(fig, "class mean") and [len(b.y) for b in traces(fig, "predictions")] == [0, 0]


def test_side_by_side_labels_are_bare_values():
    """Two rounds side by side (no legend): the page's key names the marks once, so each label is its value
    alone; words beside every box would run into the neighbouring box's labels at half a projector's width."""
    fields, values = ("r(B)", "r(C)"), ((0.75, 0.5, 0.1), (0.25, 0.5, 0.6))
    means = (0.45, 0.45)  # (0.75 + 0.5 + 0.1) / 3, (0.25 + 0.5 + 0.6) / 3
    pair = class_predictions_figure(fields, values, means, (Fraction(3, 4), Fraction(1, 4)), None, 22, False)
    mean_labels = [t for t in pair.data if t.type == "scatter" and t.mode == "text"][0]
    assert list(mean_labels.text) == ["0.45", "0.45"]
    assert list(traces(pair, "exact answer")[1].text) == ["3/4", "1/4"]
    assert not pair.layout.showlegend
