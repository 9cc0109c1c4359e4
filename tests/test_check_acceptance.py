"""``lab check`` on one-step samplers: the boundary uniforms name the cause the calls show, and the report
gives how often the sampler kept its draft beside the most a rule with the target's law can keep.

Expected figures are derived by hand from the cases' laws (written out below), not read from the check.
"""

from fractions import Fraction

import numpy as np
from scipy import stats

import tests.check_samplers as samplers
from lab.check import PowerTarget, check_block, check_step
from lab.check.report import CaseResult

COARSE = PowerTarget(tv=0.05)


def boundary_reasons(case):
    return [r for r in case.reasons if r.startswith("boundary uniforms")]


# --- the cause the boundary calls show --------------------------------------------------------------


def test_a_draft_returned_as_kept_with_p_0_is_blamed_on_less_or_equal():
    (case,) = check_step(samplers.keeps_on_less_or_equal_flagged, cases=["disjoint-support"], target=COARSE).cases
    (reason,) = boundary_reasons(case)
    assert "kept a draft with p = 0" in reason and "u <= p/q" in reason and "u < p/q" in reason
    assert "residual" not in reason


def test_a_token_of_probability_0_from_the_correction_is_blamed_on_the_residual_not_on_less_or_equal():
    from tests.test_check import load_example

    floor = load_example("epsilon_floor")  # u < p/q, residual floored at 1e-3, returned with each correction
    (case,) = check_step(floor.step, cases=["disjoint-support"], target=COARSE).cases
    (reason,) = boundary_reasons(case)
    assert "the correction drew a token with p = 0" in reason and "residual" in reason
    assert "u <= p/q" not in reason


def test_a_token_only_sampler_whose_draws_already_land_where_p_is_0_is_blamed_on_that_mass():
    # softmax(max(p - q, 0)) on disjoint-support gives C and D mass e^0 / (e^.5 + e^.5 + 2): the ordinary
    # draws land there, so the boundary's token of probability 0 is that mass, not u <= p/q
    (case,) = check_step(samplers.softmaxed_residual, cases=["disjoint-support"], target=COARSE).cases
    assert sum(case.data["counts"][t] for t in ("C", "D")) > 0
    reasons = boundary_reasons(case)
    assert reasons, case.reasons
    assert all("u <= p/q" not in r.split(". ")[0] for r in reasons)
    assert any("The ordinary draws landed on tokens of probability 0 too" in r for r in reasons)


def test_the_correct_rule_returned_with_flags_passes_the_boundary():
    from tests.test_check import load_example

    correct = load_example("correct_numpy")
    (case,) = check_step(correct.step, cases=["disjoint-support"], target=COARSE).cases
    assert case.passed and not boundary_reasons(case)
    assert {row["returned_as"] for row in case.data["boundary_uniforms"]["calls"]} == {"corrected"}  # Z = 1


# --- acceptance ------------------------------------------------------------------------------------


def test_the_correct_rule_keeps_sum_of_min_p_q_and_is_not_called_wasteful():
    from tests.test_check import load_example

    correct = load_example("correct_numpy")
    (case,) = check_step(correct.step, cases=["partial-zeros"], target=COARSE).cases
    # partial-zeros: p = (1/2, 0, 1/4, 1/4), q = (1/4, 1/4, 1/2, 0): min = (1/4, 0, 1/4, 0), sum 1/2
    kept = case.data["acceptance"]
    assert Fraction(kept["optimum"]) == Fraction(1, 2)
    assert kept["calls_counted"] == case.data["draws"]
    assert not kept["wasteful"] and stats.binomtest(kept["kept"], kept["calls_counted"], 0.5).pvalue > 1e-6
    assert "drafts kept" in case.summary_line() and "WASTEFUL" not in case.summary_line()


def test_sample_and_match_has_the_right_law_but_is_called_wasteful_with_its_rate():
    report = check_step(samplers.sample_and_match, cases=["partial-zeros", "equal-distributions"], target=COARSE)
    partial, equal = report.cases
    assert partial.passed and equal.passed, report.text()  # the law is p: no fail
    # it keeps when x ~ q equals y ~ p: sum p*q = 1/2*1/4 + 0 + 1/4*1/2 + 0 = 1/4, against 1/2
    kept = partial.data["acceptance"]
    assert kept["wasteful"] and abs(kept["rate"] - 0.25) < 4 * np.sqrt(0.25 * 0.75 / kept["calls_counted"])
    (note,) = [n for n in partial.notes if n.startswith("correct but wasteful")]
    assert "Σ min(p, q) = 1/2" in note and "WASTEFUL" in partial.summary_line()
    assert Fraction(equal.data["acceptance"]["optimum"]) == 1 and equal.data["acceptance"]["wasteful"]


def test_kept_flags_above_what_any_lossless_rule_keeps_are_said_to_be_wrong():
    (case,) = check_step(samplers.claims_every_draft_kept, cases=["bernoulli-residual"], target=COARSE).cases
    assert case.passed and case.data["acceptance"]["above_optimum"]
    assert any("its kept flags are not what it did" in n for n in case.notes)


def test_a_sampler_that_returns_a_token_alone_has_no_acceptance_figure():
    (case,) = check_step(samplers.keeps_on_less_or_equal, cases=["bernoulli-residual"], target=COARSE).cases
    assert "acceptance" not in case.data and "drafts kept" not in case.summary_line()


# --- naming a mistake only with evidence ----------------------------------------------------------------


def test_a_mistake_none_of_the_known_ones_is_called_biased_with_the_closest_and_its_distance():
    """The softmaxed residual (transformers PR #28508) is none of the lab's named mistakes: on 960 draws of
    eight-words resample-from-p fitted best and was named; now no case names it and the report says the closest
    ones disagree."""
    report = check_step(samplers.softmaxed_residual, max_draws=960,
                        cases=["eight-words", "bernoulli-residual", "pet-words", "one-hot-draft"])
    assert report.verdict == "fail"
    for case in report.cases:
        fit = case.data["best_variant"]
        assert not fit["named"], (case.name, fit)
        assert "biased; closest known mistake: " in report.text()
        assert fit["distance_from_counts_tv"] > 0
    across = report.as_json()["named_mistake"]
    assert across["agree"] is None and len(across["closest_by_mistake"]) > 1
    assert "the cases disagree" in report.text()


def test_a_clear_mistake_is_named_on_every_case_with_its_margin_and_one_name_across_cases():
    from tests.test_check import load_example

    floor = load_example("epsilon_floor")
    report = check_step(floor.step, cases=["disjoint-support", "partial-zeros", "processed-target"], target=COARSE)
    for case in report.cases:
        fit = case.data["best_variant"]
        assert fit["named"] and fit["variant"] == "epsilon-floor", fit
        assert fit["fit_p_value"] >= 0.001 and fit["log_likelihood_margin"] is None or \
            fit["log_likelihood_margin"] >= np.log(1000)
    assert report.as_json()["named_mistake"] == {"agree": True, "mistake": "epsilon-floor",
                                                 "cases": ["disjoint-support", "partial-zeros", "processed-target"],
                                                 "unnamed": []}
    assert "named mistake across the failing cases that name one (3): epsilon-floor" in report.text()


def test_the_raw_logits_draft_q_of_transformers_47932_is_named_on_the_processed_case():
    from lab.check.processing import processed_case

    # processed p = (64/89, 25/89, 0, 0, 0, 0), processed q = (25/61, 36/61, 0, ...), raw q = (5, 6, 4, 3, 1, 1)/20.
    # w0 is always kept (p/q_raw = 256/89 > 1); w1 with (25/89)/(3/10) = 250/267; the residual max(p - q_raw, 0)
    # is all on w0. So w1 = 36/61 * 250/267 = 9000/16287 and w0 = 7287/16287.
    law = processed_case().variant_laws()["raw-draft-q"]
    assert law == (Fraction(7287, 16287), Fraction(9000, 16287), 0, 0, 0, 0)
    name = "processed-temperature-top-k-top-p"
    report = check_step(samplers.raw_draft_q, cases=[name, "bernoulli-residual"], target=COARSE)
    processed, plain = report.cases
    assert plain.passed, plain.reasons  # nothing to process there: the raw q is the q
    fit = processed.data["best_variant"]
    assert processed.verdict == "fail" and fit["named"] and fit["variant"] == "raw-draft-q", fit
    assert "transformers #47932" in fit["title"]


def test_a_name_found_on_one_case_of_many_is_said_to_be_that_case_only():
    from lab.check.identify import agreement, agreement_text

    def result(name, named):
        return CaseResult(name, "step", "", False, ["x"], data={"best_variant": {
            "variant": "greedy-draft", "same_law_on_this_case": [], "named": named}})

    found = agreement([result("pet-words", True), result("eight-words", False), result("one-hot-draft", False)])
    assert found == {"agree": True, "mistake": "greedy-draft", "cases": ["pet-words"],
                     "unnamed": ["eight-words", "one-hot-draft"]}
    assert agreement_text(found).startswith("greedy-draft is named on pet-words only; 2 other failing case(s)")


# --- blocks: tokens a first block commits ------------------------------------------------------------------


def hand_first_block_mean(model, keep) -> Fraction:
    """K = 2 on a model that never stops, written out: the first block commits 1 token when the first draft goes,
    2 when the first is kept and the second goes, 3 (two drafts and the bonus) when both are kept. So
    E = 1 + sum_x P(x drafted and kept at the start) * (1 + P(the second draft kept after x)), where a draft from
    q(.|c) is kept with keep(p(.|c), q(.|c)) = sum_x min(p, q) for speculative sampling, sum_x p·q for
    sample-and-match (the first sum weighted token by token)."""
    start_p, start_q = model.target[0], model.draft[0]
    total = Fraction(1)
    for x in range(len(model.vocab)):
        kept_x = keep([start_p[x]], [start_q[x]])
        total += kept_x * (1 + keep(model.target[x + 1], model.draft[x + 1]))
    return total


def min_sum(p, q):
    return sum((min(a, b) for a, b in zip(p, q)), Fraction(0))


def product_sum(p, q):
    return sum((a * b for a, b in zip(p, q)), Fraction(0))


def test_a_block_sampler_s_first_blocks_are_counted_beside_speculative_sampling_s_exact_length():
    from examples.correct_numpy import block
    from lab.core.markov import load_model

    model = load_model("markov-three")
    expected = hand_first_block_mean(model, min_sum)
    assert expected == Fraction(83, 40)
    report = check_block(block, cases=["markov-three-K2-L2"], target=COARSE)
    (case,) = report.cases
    blocks = case.data["block_acceptance"]
    assert case.passed and blocks["speculative_mean"] == "83/40" and not blocks["wasteful"], case.data
    assert blocks["first_blocks"] == case.data["draws"]  # one first block per output
    assert abs(blocks["mean_tokens"] - 83 / 40) < 0.05
    assert "first blocks commit" in case.summary_line() and "WASTEFUL" not in case.summary_line()


def test_sample_and_match_in_blocks_has_the_target_s_law_and_is_called_wasteful():
    from lab.core.markov import load_model

    model = load_model("markov-three")
    # its own mean, by hand: sum p·q in place of sum min(p, q)
    fewer = hand_first_block_mean(model, product_sum)
    assert fewer < Fraction(83, 40)
    (case,) = check_block(samplers.sample_and_match_block, cases=["markov-three-K2-L2"], target=COARSE).cases
    blocks = case.data["block_acceptance"]
    assert case.passed, case.reasons  # the law is right
    assert blocks["wasteful"] and abs(blocks["mean_tokens"] - float(fewer)) < 0.05, (blocks, float(fewer))
    (note,) = [n for n in case.notes if n.startswith("correct but wasteful")]
    assert "83/40" in note and "WASTEFUL" in case.summary_line()
