"""Models that stop: the law over complete outputs, block decoding with the stop token, and its references.

The rules: an output ends with the stop token, or is cut at the maximum length L (the stop token counts as
one of the L tokens). The draft drafts nothing after a proposed stop token; a kept or corrected stop token
ends the output (no bonus after it, later drafts discarded); the maximum length cuts the last block short.
"""

import itertools
from fractions import Fraction as F

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from random_models import stop_models
from reference_blocks import enumerated_law, stop_enumerated_law

from lab.core.blocks import (
    MAX_BLOCK,
    MAX_LENGTH,
    block_chain,
    check_outcomes,
    compare_laws,
    count_outcomes,
    run_block,
    simulate_blocks,
    speculative_law,
    target_law,
)
from lab.core.markov import START, MarkovModel, ModelError, load_model, load_model_file, model_names
from lab.core.sampling import make_streams
from lab.core.variants import VARIANT_NAMES, VARIANTS
from lab.teaching.pitfalls import default_block_length, mistakes

STOP_MODELS = [name for name in model_names() if load_model(name).stop is not None]

HALF, QUARTER, ZERO, ONE = F(1, 2), F(1, 4), F(0), F(1)
# Tokens a, b and the stop token E. p: start (1/2, 1/2, 0), after a (0, 0, 1), after b (1/2, 0, 1/2);
# q: start (1/2, 0, 1/2), after a (0, 0, 1), after b (1/2, 0, 1/2) (q = p except at the first position).
# The stop token's rows (read only by the stop-token mistakes) are the start rows.
HAND = MarkovModel(
    "hand",
    "hand",
    "",
    ("a", "b", "E"),
    ((HALF, HALF, ZERO), (ZERO, ZERO, ONE), (HALF, ZERO, HALF), (HALF, HALF, ZERO)),
    ((HALF, ZERO, HALF), (ZERO, ZERO, ONE), (HALF, ZERO, HALF), (HALF, ZERO, HALF)),
    stop=2,
)
A, B, E = 0, 1, 2


def brute_force_complete_outputs(model, length):
    """Every sequence of 1..L tokens that is a complete output (stop token last and only there, or L tokens
    and no stop token), with the product of the target's conditionals; zeros left out."""
    law = {}
    for n in range(1, length + 1):
        for seq in itertools.product(range(len(model.vocab)), repeat=n):
            stops = [i for i, t in enumerate(seq) if t == model.stop]
            if stops and stops != [n - 1]:
                continue
            if not stops and n < length:
                continue
            prob, prev = F(1), START
            for token in seq:
                prob *= model.p(prev)[token]
                prev = token
            if prob:
                law[seq] = prob
    return law


def test_target_law_by_hand():
    # L = 3: a E = 1/2 * 1 = 1/2; b E = 1/2 * 1/2 = 1/4; b a E = 1/2 * 1/2 * 1 = 1/4 (nothing is longer).
    assert target_law(HAND, 3) == {(A, E): HALF, (B, E): QUARTER, (B, A, E): QUARTER}
    # L = 2 cuts b a (the stop token would be the third token): a E 1/2, b E 1/4, b a 1/4.
    assert target_law(HAND, 2) == {(A, E): HALF, (B, E): QUARTER, (B, A): QUARTER}
    # L = 1: every output is cut after one token.
    assert target_law(HAND, 1) == {(A,): HALF, (B,): HALF}


def test_block_law_by_hand():
    # K = 2 from the start: x1 ~ q = a or E, 1/2 each.
    # x1 = a: p/q = 1, kept; x2 ~ q(.|a) = E, p(E|a) = q(E|a) = 1, kept: the output a E ends (no bonus): 1/2.
    # x1 = E: p(E|start) = 0, rejected; nothing was drafted after E; the residual at the start is
    # max(0, p - q) = (0, 1/2, 0) / (1/2) = b: b is committed and the block ends.
    # From b: x1 ~ q(.|b) = a or E, 1/2 each, both kept (q = p after b). x1 = E: b E ends, 1/2 * 1/2 = 1/4.
    # x1 = a: x2 = E kept after a: b a E, 1/4. So the law is the target's, 1/2, 1/4, 1/4.
    # With L = 2 the second block from b is cut after a: b a 1/4.
    for block in (1, 2, 3):
        assert speculative_law(HAND, block, 3) == {(A, E): HALF, (B, E): QUARTER, (B, A, E): QUARTER}
        assert speculative_law(HAND, block, 2) == {(A, E): HALF, (B, E): QUARTER, (B, A): QUARTER}


def test_the_chain_ends_at_the_stop_token():
    chain = block_chain(HAND, 2)
    assert all(t != E for t, _ in chain.moves)  # no move continues after a committed stop token
    assert chain.can_end
    assert not block_chain(load_model("markov-three"), 2).can_end


@pytest.mark.parametrize("name", STOP_MODELS)
def test_shipped_stop_models_target_law_is_the_brute_force_law(name):
    model = load_model(name)
    for length in (1, 2, 3, 4):
        law = target_law(model, length)
        assert law == brute_force_complete_outputs(model, length)
        assert sum(law.values()) == 1


@pytest.mark.parametrize("name", STOP_MODELS)
def test_every_k_and_l_the_pages_allow_gives_distance_exactly_zero(name):
    model = load_model(name)
    for block in range(1, MAX_BLOCK + 1):
        for length in range(1, MAX_LENGTH + 1):
            comparison = compare_laws(model, block, length)
            assert comparison.distance == 0 and type(comparison.distance) is F
            assert comparison.speculative == comparison.target


@pytest.mark.parametrize("name", STOP_MODELS)
@pytest.mark.parametrize("variant", VARIANT_NAMES)
def test_every_variant_on_shipped_stop_models_equals_the_enumeration(name, variant):
    model = load_model(name)
    for block in (1, 2, 3):
        for length in (1, 2, 3, 4):
            assert speculative_law(model, block, length, variant) == enumerated_law(model, block, length, variant)


def test_shipped_stop_models():
    assert len(STOP_MODELS) >= 2
    for name in STOP_MODELS:
        model = load_model(name)
        assert model.stop_name == "<end>"
        stop = model.stop
        # the stop token is reachable, and some complete output is shorter than the page's longest L
        assert any(model.stopped(seq) for seq in target_law(model, 3))
        # a correction can commit the stop token somewhere, or the draft proposes it where p does not
        assert any(model.p(t)[stop] != model.q(t)[stop] for t in model.contexts if t != stop)
    sentences = load_model("markov-sentences-end")
    assert max(len(s) for s in target_law(sentences, 8)) == 5  # the cat sat down <end>
    assert all(sentences.stopped(s) for s in target_law(sentences, 5))


@settings(max_examples=60, deadline=None)
@given(model=stop_models(), block=st.integers(1, 3), length=st.integers(1, 4))
def test_random_stop_models_correct_decoding_is_the_target_law(model, block, length):
    comparison = compare_laws(model, block, length)
    assert comparison.distance == 0
    assert comparison.target == brute_force_complete_outputs(model, length)


@settings(max_examples=60, deadline=None)
@given(model=stop_models(), block=st.integers(1, 3), length=st.integers(1, 3), variant=st.sampled_from(VARIANT_NAMES))
def test_random_stop_models_every_variant_equals_the_enumeration(model, block, length, variant):
    assert speculative_law(model, block, length, variant) == stop_enumerated_law(model, block, length, variant)


def test_count_outcomes_counts_shorter_outputs_when_a_model_stops():
    # a -> {a, E}, from the start {a}: lengths 1..3 with shorter paths counted: 1 + 2 + 2 = 5
    emitted = {START: frozenset({0}), 0: frozenset({0, 1})}
    assert count_outcomes(emitted, 3) == 2
    assert count_outcomes(emitted, 3, can_end=True) == 5
    for name in STOP_MODELS:
        model = load_model(name)
        for length in (1, 2, 3, 4):
            chain = block_chain(model, 2)
            assert len(speculative_law(model, 2, length)) <= check_outcomes(model, chain, length)


# --- one block, sampled ---------------------------------------------------------------------------


def traces(model, block, room=None, seeds=range(400)):
    return [run_block(model, block, START, make_streams(seed), room=room) for seed in seeds]


def test_a_proposed_stop_token_ends_the_draft_run():
    for trace in traces(HAND, 3):
        if E in trace.drafts:
            assert trace.drafts[-1] == E and trace.drafts.count(E) == 1
    assert any(trace.drafts == (E,) for trace in traces(HAND, 3))  # E proposed first: nothing after it


def test_a_kept_or_corrected_stop_token_ends_the_output_without_a_bonus():
    model = load_model("markov-ab-end")
    stop = model.stop
    kept = corrected = 0
    for trace in traces(model, 4, seeds=range(600)):
        if stop not in trace.committed:
            assert not trace.ends_output
            continue
        assert trace.ends_output and trace.committed[-1] == stop and trace.committed.count(stop) == 1
        assert trace.bonus is None or trace.bonus == stop
        tested = [t for t in trace.tests if t.status != "discarded"]
        if tested[-1].status == "accepted" and tested[-1].token == stop:
            kept += 1
            assert trace.bonus is None
        elif tested[-1].status == "rejected" and tested[-1].replacement == stop:
            corrected += 1
            assert trace.bonus is None
    assert kept and corrected  # both endings happen within these seeds


def test_the_maximum_length_cuts_a_block():
    model = load_model("markov-ab-end")
    for trace in traces(model, 5, room=2):
        assert len(trace.drafts) <= 2 and len(trace.committed) <= 2
        if len(trace.committed) == 2 and trace.rejection is None:
            assert trace.bonus is None and trace.reached_length
    # without a room a block with every draft kept ends with its bonus
    assert any(t.bonus is not None and len(t.committed) == 6 for t in traces(load_model("markov-three"), 5))


@pytest.mark.parametrize("name", STOP_MODELS)
def test_seeded_simulation_fits_the_law_over_complete_outputs(name):
    model = load_model(name)
    sim = simulate_blocks(model, 3, 4, 6_000, seed=7)
    assert set(sim.counts) <= set(sim.target)
    assert all(model.stopped(seq) or len(seq) == 4 for seq in sim.counts)
    assert sim.fit_target.p_value > 0.001


# --- model files ------------------------------------------------------------------------------------

STOP_FILE = """
title = "t"
kind = "markov"
vocab = ["x", "<end>"]
stop = "<end>"
[target]
start = ["1", "0"]
x = ["1/2", "1/2"]
[draft]
start = ["1/2", "1/2"]
x = ["1/2", "1/2"]
"""


def write(tmp_path, text):
    path = tmp_path / "m.toml"
    path.write_text(text, encoding="utf-8")
    return path


def test_a_model_file_names_its_stop_token_and_needs_no_row_for_it(tmp_path):
    model = load_model_file(write(tmp_path, STOP_FILE))
    assert model.stop == 1 and model.stop_name == "<end>"
    assert model.p(1) == model.p(START) and model.q(1) == model.q(START)  # read only after the stop token
    assert not model.is_iid
    # x x <end> = 1 * 1/2 * 1/2; x <end> = 1/2; x x x cut at L = 3: 1/4
    assert target_law(model, 3) == {(0, 1): HALF, (0, 0, 1): QUARTER, (0, 0, 0): QUARTER}


def test_a_row_for_the_stop_token_is_read_when_given(tmp_path):
    text = STOP_FILE.replace('x = ["1/2", "1/2"]\n[draft]', 'x = ["1/2", "1/2"]\n"<end>" = ["1/4", "3/4"]\n[draft]')
    model = load_model_file(write(tmp_path, text))
    assert model.p(1) == (QUARTER, F(3, 4)) and model.q(1) == model.q(START)


def test_a_stop_token_outside_the_vocabulary_is_refused(tmp_path):
    with pytest.raises(ModelError, match=r"m.toml: field 'stop' is 'end', which is not a token of 'vocab'"):
        load_model_file(write(tmp_path, STOP_FILE.replace('stop = "<end>"', 'stop = "end"')))
    with pytest.raises(ModelError, match="field 'stop'"):
        load_model_file(write(tmp_path, STOP_FILE.replace('stop = "<end>"', "stop = 3")))


# --- the mistakes at the stop token -----------------------------------------------------------------

STOP_MISTAKES = [name for name, v in VARIANTS.items() if v.stop_only]


def test_the_stop_mistakes_by_hand():
    # HAND, K = 2, L = 4 (the target law is a E 1/2, b E 1/4, b a E 1/4, as above).
    # bonus-after-stop: from the start x1 = a kept, x2 = E kept: the run ended at the stop token with every draft
    # kept, so a bonus follows from p(.|E) = p(start) = (1/2, 1/2, 0): a E a 1/4, a E b 1/4. x1 = E is rejected
    # -> b (as in the correct algorithm). From b: x1 = a, x2 = E, both kept, bonus: b a E a 1/8, b a E b 1/8;
    # x1 = E kept (the run ends there), bonus: b E a 1/8, b E b 1/8.
    assert speculative_law(HAND, 2, 4, "bonus-after-stop") == {
        (A, E, A): QUARTER,
        (A, E, B): QUARTER,
        (B, A, E, A): F(1, 8),
        (B, A, E, B): F(1, 8),
        (B, E, A): F(1, 8),
        (B, E, B): F(1, 8),
    }
    # draft-past-stop: the same while the stop token is the block's last draft (a E then the bonus, b a E then
    # the bonus). From b, x1 = E is kept and the draft goes on: x2 ~ q(.|E) = q(start) = (1/2, 0, 1/2), tested
    # after E with p(start): x2 = a is kept (p/q = 1), all kept, bonus from p(.|a) = E: b E a E 1/8; x2 = E is
    # rejected (p(E|start) = 0), the residual at the start gives b: b E b 1/8. Each output ends with its block.
    assert speculative_law(HAND, 2, 4, "draft-past-stop") == {
        (A, E, A): QUARTER,
        (A, E, B): QUARTER,
        (B, A, E, A): F(1, 8),
        (B, A, E, B): F(1, 8),
        (B, E, A, E): F(1, 8),
        (B, E, B): F(1, 8),
    }
    # every output of either mistake holds a token after the stop token: distance 1 from the target
    for name in STOP_MISTAKES:
        assert compare_laws(HAND, 2, 4, name).distance == 1
        # with L = 2 whatever follows the stop token is cut: both laws are the target's
        assert compare_laws(HAND, 2, 2, name).distance == 0


@pytest.mark.parametrize("name", STOP_MISTAKES)
def test_each_stop_mistake_is_biased_on_every_shipped_stop_model(name):
    for model_name in STOP_MODELS:
        model = load_model(model_name)
        k, length = default_block_length(model)
        comparison = compare_laws(model, k, length, name)
        assert comparison.distance > 0, model_name
        assert sum(comparison.speculative.values()) == 1
        # the mistake's outputs hold a token after a stop token
        assert any(model.stop in seq[:-1] for seq in comparison.speculative)
        report = mistakes(model_name)
        assert report.laws[name].tv_distance == comparison.distance
        assert report.laws["correct"].tv_distance == 0


@pytest.mark.parametrize("name", STOP_MISTAKES)
def test_the_stop_mistakes_change_nothing_without_a_stop_token(name):
    for model_name in ("markov-three", "markov-tiny-sentences", "bernoulli-residual"):
        assert compare_laws(load_model(model_name), 3, 3, name).distance == 0


def cut_at_the_first_stop(law, stop):
    out = {}
    for seq, prob in law.items():
        cut = seq[: seq.index(stop) + 1] if stop in seq else seq
        out[cut] = out.get(cut, 0) + prob
    return out


@settings(max_examples=40, deadline=None)
@given(model=stop_models(), block=st.integers(1, 3), length=st.integers(1, 4), name=st.sampled_from(STOP_MISTAKES))
def test_cutting_a_stop_mistakes_output_at_its_first_stop_token_gives_the_target_law(model, block, length, name):
    # what the cards call harmless: everything up to the first stop token is the correct decoder's
    law = speculative_law(model, block, length, name)
    assert cut_at_the_first_stop(law, model.stop) == target_law(model, length)


def test_stop_mistakes_simulated_fit_their_own_law():
    model = load_model("markov-ab-end")
    for name in STOP_MISTAKES:
        sim = simulate_blocks(model, 2, 4, 6_000, seed=3, variant=name)
        assert sim.fit_law.p_value > 0.001
        assert sim.fit_target.p_value < 1e-6  # biased, and 6,000 outputs see it


def test_a_new_block_mistake_is_one_overridden_rule_that_the_chain_and_the_sampler_both_follow():
    # A mistake the lab does not list: the output ends at a proposed stop token even when the target rejected
    # it (its replacement is committed, then nothing more). One method overridden; no engine code changes.
    from lab.core.blocks import block_outputs
    from lab.core.variants import DONE, Variant

    class EndsAtRejectedStop(Variant):
        name = "ends-at-rejected-stop"

        def after_replaced(self, state, x, y, stop, block):
            return DONE if x == stop else super().after_replaced(state, x, y, stop, block)

    mistake = EndsAtRejectedStop()
    # By hand (K = 1 or 2, L = 3): x1 ~ q(start) = a or E, 1/2 each. a is kept and a E follows as in the
    # correct algorithm (1/2). E has p = 0: rejected, replaced by b (the residual at the start is b), and the
    # output ends there: (b,) 1/2, where the target has b E 1/4 and b a E 1/4.
    for block in (1, 2):
        assert speculative_law(HAND, block, 3, mistake) == {(A, E): HALF, (B,): HALF}
        outputs = list(block_outputs(HAND, block, 3, 2_000, make_streams(7), mistake))
        assert set(outputs) == {(A, E), (B,)}
        assert 850 < outputs.count((B,)) < 1_150  # binomial(2000, 1/2): 1000 +- 150 is beyond 6.7 sd
    seed = next(s for s in range(100) if run_block(HAND, 2, START, make_streams(s)).drafts[0] == E)
    trace = run_block(HAND, 2, START, make_streams(seed), mistake)
    assert trace.committed == (B,) and trace.ends_output
    assert not run_block(HAND, 2, START, make_streams(seed)).ends_output  # the correct algorithm goes on after b
