"""Block decoding: exact laws against an independent brute force, traces, seeded simulations."""

from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from random_models import models
from reference_blocks import brute_force_target, chunk_law

from lab.core.blocks import (
    BlockInputError,
    compare_laws,
    run_block,
    simulate_blocks,
    speculative_law,
    target_law,
)
from lab.core.distance import total_variation
from lab.core.distributions import from_pairs
from lab.core.markov import START, load_model
from lab.core.residual import residual_exact
from lab.core.sampling import make_streams

MODELS = [
    "markov-three",
    "markov-draft-misses",
    "markov-tiny-sentences",
    "bernoulli-residual",
    "disjoint-support",
    "equal-distributions",
    "one-hot-draft",
]




@pytest.mark.parametrize("name", MODELS)
@pytest.mark.parametrize("block", [1, 2, 3])
@pytest.mark.parametrize("length", [1, 2, 4])
def test_block_decoding_law_equals_the_target_law_exactly(name, block, length):
    model = load_model(name)
    spec = speculative_law(model, block, length)
    assert spec == brute_force_target(model, length)
    assert sum(spec.values()) == 1


def test_target_law_matches_brute_force():
    for name in MODELS:
        model = load_model(name)
        assert target_law(model, 3) == brute_force_target(model, 3)


def test_compare_laws_distance_zero_and_rows():
    comparison = compare_laws(load_model("markov-three"), 3, 3)
    assert comparison.distance == 0
    assert all(t == s for _, t, s in comparison.rows())


def test_law_distance_by_hand():
    # |1/2 - 1/4| + |1/2 - 0| + |0 - 3/4| = 1/4 + 1/2 + 3/4 = 3/2, halved: 3/4
    assert total_variation({(0,): F(1, 2), (1,): F(1, 2)}, {(0,): F(1, 4), (2,): F(3, 4)}) == F(3, 4)


def test_one_block_law_by_hand_for_the_worked_example():
    # i.i.d. worked example, K = 1: the draft x is kept with min(p, q)(x), then a bonus y ~ p follows;
    # otherwise the block is the single replacement, Z * r = 2/5 * (0, 3/4, 1/4) = (0, 3/10, 1/10).
    model = load_model("bernoulli-residual")
    law = chunk_law(model, 1, START, limit=5)
    A, B, C = 0, 1, 2
    assert law[(A, A)] == F(1, 10) * F(1, 10)
    assert law[(B, C)] == F(3, 10) * F(3, 10)
    assert law[(C, B)] == F(1, 5) * F(3, 5)
    assert law[(B,)] == F(3, 10) and law[(C,)] == F(1, 10)
    assert (A,) not in law  # r(A) = 0: A never comes from the correction
    assert sum(v for k, v in law.items() if len(k) == 2) == F(3, 5)  # alpha


def test_no_rejection_branch_when_rows_are_equal():
    model = load_model("equal-distributions")  # Z = 0: every draft kept, r never formed
    law = chunk_law(model, 3, START, limit=10)
    assert all(len(chunk) == 4 for chunk in law)
    for seed in range(20):
        trace = run_block(model, 3, START, make_streams(seed))
        assert trace.rejection is None and trace.bonus is not None and len(trace.committed) == 4


def test_disjoint_support_rejects_every_first_draft():
    model = load_model("disjoint-support")  # alpha = 0, Z = 1, r = p
    law = chunk_law(model, 3, START, limit=10)
    assert law == {(i,): v for i, v in enumerate(model.p(START)) if v}


@pytest.mark.parametrize("seed", range(30))
def test_trace_follows_the_block_rules(seed):
    model = load_model("markov-three")
    block = 4
    trace = run_block(model, block, START, make_streams(seed))
    assert len(trace.drafts) == len(trace.tests) == block
    history = START
    committed = []
    for test in trace.tests:
        if trace.rejection is not None and test.position > trace.rejection:
            assert test.status == "discarded" and test.u is None
            continue
        assert test.test_context == history
        p_row, q_row = model.p(history), model.q(history)
        assert test.accept_probability == min(F(1), p_row[test.token] / q_row[test.token])
        if test.status == "accepted":
            assert test.u < test.accept_probability
            committed.append(test.token)
            history = test.token
        else:
            assert test.status == "rejected" and test.position == trace.rejection
            assert test.u >= test.accept_probability
            # the residual at this position, given the verified history, from the one-step core
            expected = residual_exact(from_pairs(zip(model.vocab, p_row)), from_pairs(zip(model.vocab, q_row))).residual
            assert test.residual == expected
            assert expected[test.replacement] > 0
            committed.append(test.replacement)
    if trace.rejection is None:
        assert trace.bonus is not None and model.p(history)[trace.bonus] > 0
        committed.append(trace.bonus)
    else:
        assert trace.bonus is None
        assert trace.discarded == trace.drafts[trace.rejection + 1 :]
    assert trace.committed == tuple(committed)


def test_traces_show_rejections_bonuses_and_discards_over_seeds():
    model = load_model("markov-three")
    traces = [run_block(model, 3, START, make_streams(seed)) for seed in range(40)]
    assert any(t.rejection is None for t in traces)
    assert any(t.rejection == 0 and len(t.discarded) == 2 for t in traces)


def test_step_button_follows_the_variants_keep_testing_flag_not_its_name():
    # A keep-testing variant under another name still gets a step for each draft tested after the first
    # rejection; the correct algorithm jumps from that rejection straight to the ending.
    from lab.core.variants import CORRECT, KeepTestingAfterRejection

    class RenamedKeepTesting(KeepTestingAfterRejection):
        name = "renamed-keep-testing"

    model = load_model("markov-three")
    seed = next(s for s in range(200) if run_block(model, 3, START, make_streams(s)).rejection == 0)
    ending = 3 + 1
    correct = run_block(model, 3, START, make_streams(seed), CORRECT)
    assert correct.next_reveal(1) == ending
    renamed = run_block(model, 3, START, make_streams(seed), RenamedKeepTesting())
    assert renamed.tests[0].status == "rejected"
    assert renamed.next_reveal(1) == 2


def test_block_simulation_fits_the_target_law():
    # Fixed seed: the p-value is a fixed number; the bound is far from it (no flake possible).
    sim = simulate_blocks(load_model("markov-three"), 2, 3, 20_000, seed=11)
    assert sum(sim.counts.values()) == 20_000
    assert sim.fit_target.impossible == 0
    assert sim.fit_target.p_value > 1e-3


def test_block_simulation_exposes_a_mistake():
    sim = simulate_blocks(load_model("markov-three"), 2, 2, 20_000, seed=5, variant="keep-testing-after-rejection")
    assert sim.fit_target.p_value < 1e-6  # the variant's law is 1/40 away from the target
    assert sim.fit_law.p_value > 1e-3  # and the simulation follows the variant's own exact law


@pytest.mark.parametrize("block", [1, 2, 4])
def test_simulated_tokens_per_block_match_the_formula_for_an_iid_model(block):
    # worked example: alpha = 3/5; E[tokens] = (1 - alpha^(K+1)) / (1 - alpha), by hand:
    expected = {1: 1.6, 2: 1.96, 4: 2.3056}[block]
    sim = simulate_blocks(load_model("bernoulli-residual"), block, 1, 20_000, seed=block)
    assert sim.blocks == 20_000  # L = 1: one block per sequence
    # sd of a block's length is at most 1.41 (K = 4: P(n) = .4, .24, .144, .0864, .1296, variance 1.963),
    # so the mean's sd is at most 0.01 and the band is 6 sigma wide
    assert abs(sim.mean_tokens_per_block - expected) < 0.06


def test_bad_block_arguments():
    model = load_model("markov-three")
    with pytest.raises(BlockInputError, match="K must be"):
        speculative_law(model, 0, 2)
    with pytest.raises(BlockInputError, match="length L"):
        speculative_law(model, 1, 0)
    with pytest.raises(BlockInputError, match="too many"):
        speculative_law(load_model("eight-words"), 1, 7)


# --- random models ------------------------------------------------------------------------------




@settings(max_examples=60, deadline=None)
@given(model=models(), block=st.integers(1, 3), length=st.integers(1, 3))
def test_random_models_block_law_equals_brute_force_target(model, block, length):
    assert speculative_law(model, block, length) == brute_force_target(model, length)
