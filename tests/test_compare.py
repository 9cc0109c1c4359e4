"""Different text, same law: ordinary sampling and block decoding from the same seed (lab/core/compare.py)."""

from fractions import Fraction as F

import pytest

from lab.core.blocks import TooLargeError, target_law
from lab.core.compare import compare_ordinary, ordinary_outputs
from lab.core.markov import load_model
from lab.core.sampling import make_streams


@pytest.mark.parametrize("name", ["markov-sentences-end", "markov-ab-end", "markov-three"])
def test_texts_differ_and_both_laws_fit(name):
    model = load_model(name)
    result = compare_ordinary(model, 3, 4, 5_000, seed=11)
    assert result.ordinary_first != result.speculative_first
    assert result.identical < result.sequences  # the texts do not all match
    assert sum(result.ordinary_counts.values()) == sum(result.speculative_counts.values()) == 5_000
    assert result.law == target_law(model, 4)
    assert result.fit_ordinary.p_value > 0.001 and result.fit_speculative.p_value > 0.001


def test_the_identical_share_is_about_the_chance_of_two_independent_draws_matching():
    # The two sides' outputs are (nearly) independent draws of one law, so they match with probability close to
    # the sum of the squared output probabilities: markov-ab-end with L = 2: (1/6)^2 * 3 + (1/3)^2 + 2 (1/12)^2.
    model = load_model("markov-ab-end")
    law = target_law(model, 2)
    collision = sum(v * v for v in law.values())
    assert collision == 3 * F(1, 36) + F(1, 9) + 2 * F(1, 144)
    result = compare_ordinary(model, 2, 2, 20_000, seed=3)
    assert abs(result.identical_share - float(collision)) < 0.05


def test_ordinary_outputs_by_hand():
    # ordinary sampling reads one uniform per token through p's CDF: from the first position p = (2/3, 1/3, 0)
    model = load_model("markov-ab-end")
    streams = make_streams(4)
    u = make_streams(4).proposal.random(8)
    first = next(ordinary_outputs(model, 1, 1, streams))
    assert first == ((0,) if u[0] < 2 / 3 else (1,))


def test_sizes_are_checked_first():
    model = load_model("markov-ab-end")
    with pytest.raises(TooLargeError, match="20,000"):
        compare_ordinary(model, 2, 3, 20_001, seed=1)
    with pytest.raises(TooLargeError, match="length L = 9"):
        compare_ordinary(model, 2, 9, 10, seed=1)
