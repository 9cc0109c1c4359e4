"""The exact block law built prefix by prefix (lab/core/blocks.py) against the old enumeration of every
draft path (tests/reference_blocks.py), for every variant, and its limits."""

from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from random_models import models
from reference_blocks import brute_force_target, enumerated_law

from lab.core.blocks import (
    LARGE_MAX_OUTCOMES,
    MAX_OUTCOMES,
    BlockInputError,
    TooLargeError,
    block_chain,
    count_outcomes,
    speculative_law,
    target_law,
)
from lab.core.markov import START, MarkovModel, all_model_names, load_model
from lab.core.variants import VARIANT_NAMES


def small_cases():
    """Every shipped model and scenario (Markov ones included), K = 1..3 and L = 1..3, kept small
    enough for the enumeration (at most 64 sequences)."""
    for name in all_model_names():
        vocab = len(load_model(name).vocab)
        for block in (1, 2, 3):
            for length in (1, 2, 3):
                if vocab**length <= 64:
                    yield name, block, length


CASES = list(small_cases())


def test_the_small_cases_cover_every_shipped_model():
    assert {name for name, _, _ in CASES} == set(all_model_names())
    assert any(load_model(name).kind == "markov" for name, _, _ in CASES)


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_prefix_law_is_the_enumerated_law_for_every_variant(variant):
    for name, block, length in CASES:
        model = load_model(name)
        new = speculative_law(model, block, length, variant)
        old = enumerated_law(model, block, length, variant)
        assert new == old, (name, block, length)
        assert all(type(v) is F for v in new.values())
        assert sum(new.values()) == 1


@pytest.mark.parametrize("name", ["markov-three", "markov-tiny-sentences", "bernoulli-residual"])
@pytest.mark.parametrize("variant", ["correct", "keep-testing-after-rejection", "reuse-uniform", "greedy-draft"])
def test_blocks_longer_than_the_law_and_longer_laws(name, variant):
    # K above L (the block is cut) and L above K (several blocks), against the enumeration
    model = load_model(name)
    for block, length in ((5, 2), (1, 4), (2, 4)):
        assert speculative_law(model, block, length, variant) == enumerated_law(model, block, length, variant)


@pytest.mark.parametrize("name", [n for n in all_model_names() if load_model(n).stop is None])
def test_correct_prefix_law_is_the_brute_force_target_law(name):
    # (models with a stop token: tests/test_blocks_stop.py, against the complete outputs' brute force)
    model = load_model(name)
    length = 3 if len(model.vocab) <= 5 else 2
    for block in (1, 2, 4, 8):
        assert speculative_law(model, block, length) == brute_force_target(model, length)
    assert target_law(model, length) == brute_force_target(model, length)


def test_keep_testing_law_by_hand_over_two_blocks():
    # Tokens a, b. p: start (1/2, 1/2), after a (1, 0), after b (1/2, 1/2); q: start (1, 0), after a
    # (1/2, 1/2), after b (1, 0). Keep-testing, K = 2, L = 3, by hand:
    # start drafts a, kept w.p. 1/2; then x2 ~ q(.|a): a is kept (bonus a), b is rejected and replaced
    # by a (r after a = (1, 0)); the block ended at j = K without a bonus and the next block commits a
    # (a kept, or b rejected -> a): a a a = 1/2.
    # start's a rejected (1/2) -> b (r at start = (0, 1)); x2 ~ q(.|a) still tested, now after b:
    # x2 = a kept w.p. 1/2 (1/8) -> next block from a gives a: b a a = 1/8; a rejected (1/8) -> b;
    # x2 = b (1/4): q(b|b) = 0 < p(b|b), kept -> b. After b b the next block gives a or b, 1/2 each:
    # b b a = b b b = (1/8 + 1/4) / 2 = 3/16. The target: a a a 1/2, b a a 1/4, b b a = b b b = 1/8.
    half, zero, one = F(1, 2), F(0), F(1)
    model = MarkovModel(
        "two",
        "two",
        "",
        ("a", "b"),
        ((half, half), (one, zero), (half, half)),
        ((one, zero), (half, half), (one, zero)),
    )
    a, b = 0, 1
    law = speculative_law(model, 2, 3, "keep-testing-after-rejection")
    assert law == {(a, a, a): F(1, 2), (b, a, a): F(1, 8), (b, b, a): F(3, 16), (b, b, b): F(3, 16)}
    assert speculative_law(model, 2, 3) == {
        (a, a, a): F(1, 2),
        (b, a, a): F(1, 4),
        (b, b, a): F(1, 8),
        (b, b, b): F(1, 8),
    }


def test_two_token_law_by_hand_for_the_seed_example():
    # bernoulli-residual (i.i.d.), K = 1, L = 2, resample-from-p: one step's law is
    # min(p, q) + Z p = (1/10, 3/10, 1/5) + 2/5 (1/10, 3/5, 3/10) = (7/50, 27/50, 8/25) (hand-derived).
    # With K = 1 a kept draft is followed by a bonus from p, so the second token's law is
    # p after a kept draft and the one-step law after a replacement:
    # P(A, A) = min(p,q)(A) p(A) + Z p(A) * (7/50) = 1/10 * 1/10 + 2/5 * 1/10 * 7/50 = 1/100 + 7/1250.
    law = speculative_law(load_model("bernoulli-residual"), 1, 2, "resample-from-p")
    assert law[(0, 0)] == F(1, 100) + F(7, 1250)
    first = {a: sum(v for k, v in law.items() if k[0] == a) for a in range(3)}
    assert first == {0: F(7, 50), 1: F(27, 50), 2: F(8, 25)}


def test_weights_are_whole_numbers_over_one_scale():
    chain = block_chain(load_model("markov-three"), 3, "epsilon-floor")
    assert chain.scale >= 1
    assert all(isinstance(w, int) and w > 0 for moves in chain.moves.values() for _, _, w in moves)
    # every state's moves add up to the scale: each step commits exactly one token or ends the block
    for moves in chain.moves.values():
        assert sum(w for _, _, w in moves) == chain.scale


@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_counted_outcomes_bound_the_support(variant):
    for name in ("markov-three", "markov-draft-misses", "partial-zeros", "one-hot-draft"):
        model = load_model(name)
        chain = block_chain(model, 2, variant)
        for length in (1, 2, 3):
            law = speculative_law(model, 2, length, variant)
            counted = count_outcomes(chain.emitted(), length)
            assert len(law) <= counted <= len(model.vocab) ** length


def test_count_outcomes_by_hand():
    # a -> {a, b}, b -> {a}; from START both: lengths 1, 2, 3 give 2, 3, 5 (Fibonacci)
    emitted = {START: frozenset({0, 1}), 0: frozenset({0, 1}), 1: frozenset({0})}
    assert [count_outcomes(emitted, n) for n in (1, 2, 3)] == [2, 3, 5]


def test_too_many_sequences_is_refused_with_the_limit_named():
    model = load_model("eight-words")  # 8 tokens, every variant can reach every sequence
    speculative_law(model, 8, 4)  # 8^4 = 4096: within the limit
    with pytest.raises(TooLargeError, match=f"32,768 sequences, too many .*limit {MAX_OUTCOMES:,}"):
        speculative_law(model, 8, 5)
    assert isinstance(TooLargeError("x"), BlockInputError)


def test_allow_large_lifts_the_limits():
    model = load_model("markov-three")  # the correct law reaches far fewer sequences than 3^L
    with pytest.raises(TooLargeError, match="length L = 9 is above the lab's limit of 8"):
        speculative_law(model, 2, 9)
    law = speculative_law(model, 2, 9, allow_large=True)
    assert law == target_law(model, 9)
    with pytest.raises(TooLargeError, match="K = 9 is above the lab's limit of 8"):
        speculative_law(model, 9, 2)
    assert speculative_law(model, 9, 2, allow_large=True) == target_law(model, 2)
    assert LARGE_MAX_OUTCOMES > MAX_OUTCOMES


# --- random models ------------------------------------------------------------------------------




@settings(max_examples=40, deadline=None)
@given(model=models(), block=st.integers(1, 3), length=st.integers(1, 3), variant=st.sampled_from(VARIANT_NAMES))
def test_random_models_prefix_law_equals_enumeration(model, block, length, variant):
    assert speculative_law(model, block, length, variant) == enumerated_law(model, block, length, variant)


def test_the_limit_counts_the_targets_sequences_too():
    # greedy-draft on markov-draft-misses reaches few sequences, but the comparison lists the target's
    # law as well: every sequence of 8 tokens with positive target probability (counted by brute force)
    model = load_model("markov-draft-misses")
    support = len(brute_force_target(model, 8))
    assert support > MAX_OUTCOMES
    assert count_outcomes(block_chain(model, 1, "greedy-draft").emitted(), 8) <= MAX_OUTCOMES
    with pytest.raises(TooLargeError, match=f"{support:,} sequences"):
        speculative_law(model, 1, 8, "greedy-draft")
