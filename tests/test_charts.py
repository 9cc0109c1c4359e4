"""Chart builders against hand-derived values (no browser, no Streamlit)."""

from fractions import Fraction as F

import pytest

from lab.charts import residual as charts
from lab.charts.palette import COLORS, PATTERNS

TOKENS = ("A", "B", "C")
# The worked example by hand: p = (1/10, 3/5, 3/10), q = (1/2, 3/10, 1/5),
# min(p, q) = (1/10, 3/10, 1/5), Z = 3/10 + 1/10 = 2/5, r = (0, 3/4, 1/4), Z*r = (0, 3/10, 1/10).
P = (F(1, 10), F(3, 5), F(3, 10))
Q = (F(1, 2), F(3, 10), F(1, 5))


def test_pq_bars_grouped_with_palette_patterns_and_fraction_labels():
    fig = charts.pq_bars(TOKENS, P, Q)
    assert fig.layout.barmode == "group"
    p_trace, q_trace = fig.data
    assert list(p_trace.x) == ["A", "B", "C"]
    assert list(p_trace.y) == [0.1, 0.6, 0.3]
    assert list(q_trace.y) == [0.5, 0.3, 0.2]
    assert list(p_trace.text) == ["1/10", "3/5", "3/10"]
    assert list(q_trace.text) == ["1/2", "3/10", "1/5"]
    assert p_trace.marker.color == COLORS["p"] and q_trace.marker.color == COLORS["q"]
    assert q_trace.marker.pattern.shape == PATTERNS["q"] == "."
    assert fig.layout.xaxis.title.text == "token" and fig.layout.yaxis.title.text == "probability"
    assert fig.layout.yaxis.range[1] > 0.6  # room above the tallest bar for its label


def test_pq_bars_projected_same_bars_every_text_at_the_projector_size():
    fig = charts.pq_bars_projected(TOKENS, P, Q, 24)
    p_trace, q_trace = fig.data
    assert list(p_trace.y) == [0.1, 0.6, 0.3] and list(q_trace.y) == [0.5, 0.3, 0.2]
    assert list(p_trace.text) == ["1/10", "3/5", "3/10"] and list(q_trace.text) == ["1/2", "3/10", "1/5"]
    assert p_trace.marker.color == COLORS["p"] and q_trace.marker.pattern.shape == PATTERNS["q"]
    sizes = {p_trace.textfont.size, q_trace.textfont.size, fig.layout.legend.font.size, fig.layout.xaxis.tickfont.size}
    assert sizes == {24}
    # no title, no height (the projector sizes it), no value axis whose ticks could read as an answer
    assert not fig.layout.title.text and fig.layout.height is None and fig.layout.yaxis.visible is False
    assert fig.layout.yaxis.range[1] > 0.6 * 1.2  # room above the tallest bar for its label


def test_prediction_vs_residual_puts_the_guess_beside_the_exact_residual():
    fig = charts.prediction_vs_residual(TOKENS, (F(0), F(1, 2), F(1, 2)), (F(0), F(3, 4), F(1, 4)))
    guess, exact = fig.data
    assert list(guess.y) == [0.0, 0.5, 0.5] and guess.marker.color == COLORS["prediction"]
    assert list(exact.y) == [0.0, 0.75, 0.25] and exact.marker.color == COLORS["residual"]
    assert list(exact.text) == ["0", "3/4", "1/4"]
    only_guess = charts.prediction_vs_residual(TOKENS, (F(1, 3),) * 3, None)
    assert len(only_guess.data) == 1


def test_reconstruction_stacks_accepted_and_correction_up_to_p():
    accepted = (F(1, 10), F(3, 10), F(1, 5))
    correction = (F(0), F(3, 10), F(1, 10))
    fig = charts.reconstruction_bars(TOKENS, accepted, correction, P)
    assert fig.layout.barmode == "stack"
    acc, cor, target = fig.data
    assert list(acc.y) == [0.1, 0.3, 0.2] and acc.marker.color == COLORS["accepted"]
    assert list(cor.y) == [0.0, 0.3, 0.1] and cor.marker.pattern.shape == PATTERNS["correction"]
    assert list(cor.customdata) == ["0", "3/10", "1/10"]
    assert list(target.y) == [0.1, 0.6, 0.3]
    assert list(target.text) == ["p = 1/10", "p = 3/5", "p = 3/10"]
    assert [a + c for a, c in zip(acc.y, cor.y)] == pytest.approx(list(target.y), abs=1e-15)


def test_disjoint_support_reconstruction_is_all_correction():
    # p = (1/2, 1/2, 0, 0), q = (0, 0, 1/4, 3/4): min = 0 everywhere, Z = 1, r = p, Z*r = p.
    tokens = ("A", "B", "C", "D")
    p = (F(1, 2), F(1, 2), F(0), F(0))
    fig = charts.reconstruction_bars(tokens, (F(0),) * 4, p, p)
    assert list(fig.data[0].y) == [0.0] * 4
    assert list(fig.data[1].y) == [0.5, 0.5, 0.0, 0.0]


def test_binomial_bars_hide_the_exact_bars_until_reveal():
    # Binomial(3, 1/2): C(3,k)/8 = 1/8, 3/8, 3/8, 1/8.
    labels = ("0", "1", "2", "3")
    hidden = charts.binomial_bars(labels, (F(0),) * 4, None, "k")
    assert len(hidden.data) == 1 and hidden.data[0].name == "your prediction"
    assert hidden.layout.yaxis.range == (0, pytest.approx(1.18))  # nothing predicted: the 0..1 scale
    shown = charts.binomial_bars(labels, (F(1, 4),) * 4, (F(1, 8), F(3, 8), F(3, 8), F(1, 8)), "k")
    assert list(shown.data[1].y) == [0.125, 0.375, 0.375, 0.125]
    assert list(shown.data[1].text) == ["1/8", "3/8", "3/8", "1/8"]
    assert shown.layout.xaxis.title.text == "k"


def test_bernoulli_bars_are_b_then_c():
    fig = charts.binomial_bars(("B", "C"), (F(7, 10), F(3, 10)), (F(3, 4), F(1, 4)), "outcome")
    assert list(fig.data[1].x) == ["B", "C"] and list(fig.data[1].y) == [0.75, 0.25]


def test_worked_example_stack_recovers_the_target():
    fig = charts.worked_example_stack(TOKENS, (F(1, 10), F(3, 10), F(1, 5)), (F(0), F(3, 10), F(1, 10)), P)
    assert fig.data[1].name == "Z × displayed bar"
    assert [a + c for a, c in zip(fig.data[0].y, fig.data[1].y)] == pytest.approx([0.1, 0.6, 0.3], abs=1e-15)


def test_long_fractions_are_labelled_as_decimals():
    # 37^2 / 100^2 = 1369/10000 has 10 characters: too long for a bar label, so 0.137.
    fig = charts.pq_bars(("A", "B"), (F(1369, 10000), F(8631, 10000)), (F(1, 2), F(1, 2)))
    assert list(fig.data[0].text) == ["0.137", "0.863"]
    assert list(fig.data[0].customdata) == ["1369/10000", "8631/10000"]


def test_token_names_are_drawn_as_text_not_markup():
    # plotly would read <a href=...> and <b> in a category name: they must arrive as entities
    tokens = ("<a href='http://e'>x</a>", "B&<b>")
    fig = charts.pq_bars(tokens, (F(1, 2), F(1, 2)), (F(1, 2), F(1, 2)))
    assert list(fig.data[0].x) == ["&lt;a href='http://e'&gt;x&lt;/a&gt;", "B&amp;&lt;b&gt;"]
    stack = charts.reconstruction_bars(tokens, (F(1, 2),) * 2, (F(0),) * 2, (F(1, 2),) * 2)
    assert list(stack.data[2].x) == list(fig.data[0].x)
