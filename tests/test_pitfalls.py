"""Pitfall cards and every variant's exact law, worked out by hand on small steps."""

from fractions import Fraction as F

import pytest

from lab.core.markov import all_model_names
from lab.core.scenarios import scenario_names
from lab.core.variants import MISTAKE_NAMES, VARIANT_NAMES
from lab.teaching.pitfalls import (
    CARDS,
    MISTAKE_CARDS,
    NO_GAIN,
    PitfallInputError,
    grade_prediction,
    harmless_scenarios,
    mistakes,
    single_step,
)

# The worked example, bernoulli-residual: p = (1/10, 3/5, 3/10), q = (1/2, 3/10, 1/5) over A, B, C.
# min(p, q) = (1/10, 3/10, 1/5), alpha = 3/5, Z = 2/5, r = (0, 3/4, 1/4). Only A can be rejected
# (p(A) < q(A)): it is kept with probability p(A)/q(A) = 1/5, so rejections carry q(A) * 4/5 = 2/5 = Z.


def law(name):
    return single_step("bernoulli-residual")[name]


def test_correct_is_p():
    result = law("correct")
    assert result.law == (F(1, 10), F(3, 5), F(3, 10))
    assert result.tv_distance == 0


def test_resample_from_p_by_hand():
    # min(p, q) + Z p = (1/10, 3/10, 1/5) + 2/5 (1/10, 3/5, 3/10) = (7/50, 27/50, 16/50).
    # TV = (|7 - 5| + |27 - 30| + |16 - 15|) / 50 / 2 = 3/50; A and C gain.
    result = law("resample-from-p")
    assert result.law == (F(7, 50), F(27, 50), F(8, 25))
    assert result.tv_distance == F(3, 50)
    assert result.accepted == (F(1, 10), F(3, 10), F(1, 5))
    assert result.corrected == (F(1, 25), F(6, 25), F(3, 25))


def test_epsilon_floor_by_hand():
    # r ~ max(p - q, 1/1000) = (1/1000, 3/10, 1/10), total 401/1000: r = (1/401, 300/401, 100/401).
    # Z r = (2/2005, 120/401, 40/401); law = (1/10 + 2/2005, 3/10 + 120/401, 1/5 + 40/401)
    #     = (405/4010, 2403/4010, 1202/4010). A gains 4/4010 = 2/2005 = TV (B loses 3/4010, C 1/4010).
    result = law("epsilon-floor")
    assert result.law == (F(405, 4010), F(2403, 4010), F(1202, 4010))
    assert result.tv_distance == F(2, 2005)


def test_zero_out_rejected_by_hand():
    # Rejected token is always A; p without A renormalised: (0, 3/5, 3/10) / (9/10) = (0, 2/3, 1/3).
    # Law = (1/10, 3/10 + 2/5 * 2/3, 1/5 + 2/5 * 1/3) = (1/10, 17/30, 1/3); TV = 1/30 (C gains 1/30).
    result = law("zero-out-rejected")
    assert result.law == (F(1, 10), F(17, 30), F(1, 3))
    assert result.tv_distance == F(1, 30)


def test_candidates_only_by_hand():
    # Candidates = q's top two, A (1/2) and B (3/10). max(0, p - q) on them: (0, 3/10, 0) -> r = (0, 1, 0).
    # Law = (1/10, 3/10 + 2/5, 1/5) = (1/10, 7/10, 1/5); TV = 1/10.
    result = law("candidates-only")
    assert result.law == (F(1, 10), F(7, 10), F(1, 5))
    assert result.tv_distance == F(1, 10)


def test_reuse_uniform_by_hand():
    # A rejected means u in [1/5, 1), uniform there. Inverse CDF of r = (0, 3/4, 1/4): B on [0, 3/4), C on [3/4, 1).
    # P(B | rejected) = (3/4 - 1/5) / (4/5) = 11/16, P(C) = (1/4) / (4/5) = 5/16.
    # Law = (1/10, 3/10 + 2/5 * 11/16, 1/5 + 2/5 * 5/16) = (1/10, 23/40, 13/40); TV = 1/40.
    result = law("reuse-uniform")
    assert result.law == (F(1, 10), F(23, 40), F(13, 40))
    assert result.tv_distance == F(1, 40)


def test_unprocessed_draft_by_hand():
    # Draft samples from q's top two renormalised: (5/8, 3/8, 0); the test uses the raw q.
    # A kept w.p. 1/5 -> 1/8; B kept w.p. min(1, 2) = 1 -> 3/8; A rejected w.p. 5/8 * 4/5 = 1/2 -> r = (0, 3/4, 1/4).
    # Law = (1/8, 3/8 + 3/8, 1/8) = (1/8, 3/4, 1/8); TV = (1/40 + 3/20 + 7/40) / 2 = 7/40.
    result = law("unprocessed-draft")
    assert result.law == (F(1, 8), F(3, 4), F(1, 8))
    assert result.tv_distance == F(7, 40)


def test_greedy_draft_by_hand():
    # Draft always proposes argmax q = A, kept w.p. 1/5; rejected 4/5 -> r = (0, 3/4, 1/4).
    # Law = (1/5, 3/5, 1/5); TV = 1/10 (A gains 1/10).
    result = law("greedy-draft")
    assert result.law == (F(1, 5), F(3, 5), F(1, 5))
    assert result.tv_distance == F(1, 10)


def test_keep_testing_is_harmless_for_one_step():
    assert law("keep-testing-after-rejection").tv_distance == 0


def test_zero_out_rejected_is_exact_for_a_one_hot_draft():
    # one-hot-draft: p = (1/2, 1/4, 1/4), q = (1, 0, 0). A is kept w.p. 1/2; rejection mass 1/2; p without A
    # renormalised = (0, 1/2, 1/2) = max(0, p - q)/Z. Law = (1/2, 1/4, 1/4) = p.
    result = single_step("one-hot-draft")["zero-out-rejected"]
    assert result.law == (F(1, 2), F(1, 4), F(1, 4))
    assert result.tv_distance == 0
    assert "one-hot-draft" in harmless_scenarios("zero-out-rejected")
    assert "one-hot-draft" in harmless_scenarios("greedy-draft")  # argmax of a one-hot q is a sample from it
    assert "bernoulli-residual" not in harmless_scenarios("zero-out-rejected")


def test_harmless_lists_match_the_cards():
    assert "disjoint-support" in harmless_scenarios("resample-from-p")  # alpha = 0: r = p
    assert harmless_scenarios("epsilon-floor") == ("equal-distributions",)  # only when no rejection happens
    assert set(harmless_scenarios("correct")) == set(scenario_names())


def test_block_engine_agrees_with_the_single_step_view():
    for name in scenario_names():
        report = mistakes(name)
        assert (report.block, report.length) == (1, 1)
        steps = single_step(name)
        for variant in VARIANT_NAMES:
            assert report.laws[variant].law == steps[variant].law, (name, variant)
            assert report.laws[variant].tv_distance == steps[variant].tv_distance


def test_every_mistake_biased_on_markov_three_except_known_cases_and_correct_is_exact_everywhere():
    report = mistakes("markov-three")
    assert (report.block, report.length) == (2, 2)
    assert report.laws["correct"].tv_distance == 0
    assert report.laws["keep-testing-after-rejection"].tv_distance > 0  # needs K >= 2 and a real Markov model
    for name in all_model_names():
        assert mistakes(name).laws["correct"].tv_distance == 0
    # keep-testing is exact on an i.i.d. model (the next token's law ignores the previous one)
    assert mistakes("bernoulli-residual", 2, 2).laws["keep-testing-after-rejection"].tv_distance == 0


def test_target_sums_to_one_and_every_law_too():
    report = mistakes("markov-three", 2, 2)
    assert sum(report.target) == 1
    for result in report.laws.values():
        assert sum(result.law) == 1


def test_mistakes_input_errors():
    with pytest.raises(Exception, match="unknown model"):
        mistakes("no-such-model")
    with pytest.raises(PitfallInputError):
        mistakes("markov-three", "2", 2)


def test_grading():
    result = mistakes("bernoulli-residual").laws["resample-from-p"]  # biased; A and C gain, A the most
    assert result.gains == ("A", "C") and result.biggest_gain == "A"
    assert grade_prediction(result, True, "A").score == 2
    assert grade_prediction(result, True, "C").score == 2
    grade = grade_prediction(result, True, "B")
    assert (grade.bias_right, grade.gain_right) == (True, False) and "A gains the most" in grade.message
    assert grade_prediction(result, False, NO_GAIN).score == 0
    exact = mistakes("bernoulli-residual").laws["keep-testing-after-rejection"]
    assert grade_prediction(exact, False, NO_GAIN).score == 2
    assert grade_prediction(exact, True, "A").score == 0
    with pytest.raises(PitfallInputError):
        grade_prediction(result, True, "Z")


def test_cards_cover_every_mistake_with_short_pseudo_code():
    assert set(MISTAKE_CARDS) == set(MISTAKE_NAMES)
    for card in CARDS.values():
        assert 2 <= len(card.mistaken) <= 4 and 2 <= len(card.correct) <= 4
        assert card.harmless_when


def test_cards_cite_exactly_the_references_given():
    cited = {(name, r.project, r.reference) for name, card in CARDS.items() for r in card.reports}
    assert cited == {
        ("epsilon-floor", "vLLM (vllm-project/vllm)", "its first rejection sampler"),
        ("greedy-draft", "huggingface/transformers", "#32867"),
        ("unprocessed-draft", "huggingface/transformers", "#47932"),
        ("unprocessed-draft", "vllm-project/vllm", "#9834"),
        ("zero-out-rejected", "SafeAILab/EAGLE", "#20"),
        ("zero-over-zero", "jaymody/speculative-sampling", "#5"),
    }
    assert "introduces some drift" in CARDS["epsilon-floor"].reports[0].what


def test_a_cards_title_is_its_variants_title():
    from lab.teaching.pitfalls import CARDS, VARIANT_WORDS

    for name, card in CARDS.items():
        if card.has_variant:
            assert card.title == VARIANT_WORDS[name].title and card.own_title is None
    assert CARDS["zero-over-zero"].title == "0/0 when p equals q"
    assert VARIANT_WORDS["greedy-draft"].title == "Greedy draft scored with softmax probabilities"


def test_gains_most_shows_every_tie():
    # disjoint-support, epsilon floor, by hand: every proposal is rejected (alpha = 0), so the law is the
    # floored r = max(p - q, 1/1000) normalised: (1/2, 1/2, 1/1000, 1/1000) / (1002/1000) =
    # (500/1002, 500/1002, 1/1002, 1/1002). C and D (target 0) each gain 1/1002: a tie.
    result = mistakes("disjoint-support").laws["epsilon-floor"]
    assert result.law == (F(500, 1002), F(500, 1002), F(1, 1002), F(1, 1002))
    assert result.biggest_gains == ("C", "D") and result.biggest_gain == "C, D"
    grade = grade_prediction(result, True, NO_GAIN)
    assert "C and D gain the most (the same amount)" in grade.message
    # no gain at all: nothing to show
    assert mistakes("disjoint-support").laws["correct"].biggest_gains == ()
    assert mistakes("disjoint-support").laws["correct"].biggest_gain is None


@pytest.mark.parametrize("model_name", ["markov-three", "eight-words"])
def test_a_stop_mistake_reused_without_a_stop_token_is_its_own_law(model_name):
    # Without a stop token the report reuses the correct law for the stop-token mistakes (a budget saving):
    # it must be exactly the law the block engine computes for each of them on its own.
    from lab.core.blocks import compare_laws
    from lab.core.markov import load_model
    from lab.core.variants import VARIANTS

    model = load_model(model_name)
    assert model.stop is None
    report = mistakes(model_name, 3, 3)
    stop_only = [name for name in VARIANT_NAMES if VARIANTS[name].stop_only]
    assert len(stop_only) >= 2
    for name in stop_only:
        own = compare_laws(model, 3, 3, name)
        law = report.laws[name]
        in_report = {text: prob for text, prob in zip(law.outcomes, law.law) if prob}
        assert in_report == {model.sequence_text(s): prob for s, prob in own.speculative.items() if prob}
        assert sum(in_report.values()) == 1
        assert law.tv_distance == own.distance == 0
