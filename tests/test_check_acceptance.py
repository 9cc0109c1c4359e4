"""``lab check`` on one-step samplers: the boundary uniforms name the cause the calls show, and the report
gives how often the sampler kept its draft beside the most a rule with the target's law can keep.

Expected figures are derived by hand from the cases' laws (written out below), not read from the check.
"""

from fractions import Fraction

import numpy as np
from scipy import stats

import tests.check_samplers as samplers
from lab.check import PowerTarget, check_step

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
