"""Exercises core: determinism, level constraints, answers against an independent derivation, marking."""

from fractions import Fraction as F

import pytest
from exercise_reference import expected_answer, sampler_law

from lab.core.distributions import Distribution
from lab.teaching.exercises import (
    LEVELS,
    UNDEFINED,
    Attempt,
    ExerciseInputError,
    Problem,
    check_answer,
    generate_predictions,
    generate_problems,
    hints,
    parse_answer,
    parse_count,
    parse_level,
    parse_seed,
    record_try,
    running_score,
    score_prediction,
    worked_solution,
)

SEEDS = range(60)


def worked_example(kind="r", token="B"):
    # The worked example: p = (1/10, 3/5, 3/10), q = (1/2, 3/10, 1/5).
    tokens = ("A", "B", "C")
    p = Distribution(tokens, (F(1, 10), F(3, 5), F(3, 10)))
    q = Distribution(tokens, (F(1, 2), F(3, 10), F(1, 5)))
    return Problem(1, 0, "basic", kind, token, p, q)


def equal_problem(kind="r", token="A"):
    tokens = ("A", "B", "C")
    d = Distribution(tokens, (F(1, 4), F(1, 4), F(1, 2)))
    return Problem(1, 0, "z0", kind, token, d, d)


# --- determinism ---------------------------------------------------------------------------------


@pytest.mark.parametrize("level", LEVELS)
def test_same_seed_same_problems_and_prefix_stable(level):
    a = generate_problems(11, 8, level)
    assert a == generate_problems("11", "8", level)
    assert generate_problems(11, 3, level) == a[:3]
    assert generate_problems(12, 8, level) != a
    assert generate_predictions(11, level) == generate_predictions(11, level)


def test_every_question_kind_appears_in_an_assignment():
    kinds = {p.kind for p in generate_problems(5, 5, "basic")}
    assert kinds == {"alpha", "z", "r", "correction", "branch"}


# --- level constraints ---------------------------------------------------------------------------


@pytest.mark.parametrize("level", LEVELS)
def test_distributions_are_friendly_and_normalised(level):
    for seed in SEEDS:
        for pr in generate_problems(seed, 5, level):
            assert 3 <= len(pr.p.tokens) <= 6
            for dist in (pr.p, pr.q):
                assert sum(dist.values) == 1
                assert all(v >= 0 and v.denominator <= 12 for v in dist.values)


def test_basic_level_has_full_support_and_rejection():
    for seed in SEEDS:
        for pr in generate_problems(seed, 5, "basic"):
            assert all(v > 0 for v in pr.p.values + pr.q.values)
            assert pr.p.values != pr.q.values


def test_zeros_level_has_a_zero_and_both_branches_live():
    for seed in SEEDS:
        for pr in generate_problems(seed, 5, "zeros"):
            assert 0 in pr.p.values or 0 in pr.q.values
            alpha, z, _, _ = sampler_law(pr.p.values, pr.q.values)
            assert 0 < alpha < 1 and z > 0


def test_disjoint_level_really_has_alpha_zero_and_r_equal_p():
    for seed in SEEDS:
        for pr in generate_problems(seed, 5, "disjoint"):
            assert all(a == 0 or b == 0 for a, b in zip(pr.p.values, pr.q.values))
            alpha, z, _, r = sampler_law(pr.p.values, pr.q.values)
            assert alpha == 0 and z == 1 and tuple(r) == pr.p.values
            assert pr.result.alpha == 0


def test_z0_level_really_has_p_equal_q_and_undefined_residual():
    for seed in SEEDS:
        for pr in generate_problems(seed, 5, "z0"):
            assert pr.p == pr.q
            assert pr.result.z == 0
            if pr.kind == "r":
                assert pr.answer == UNDEFINED
        assert generate_problems(seed, 1, "z0")[0].kind == "r"  # the trick question comes first


def test_predict_the_bars_always_has_bars():
    for level in LEVELS:
        for pr in generate_predictions(3, level):
            assert pr.truth is not None and sum(pr.truth) == 1


# --- answers -------------------------------------------------------------------------------------


@pytest.mark.parametrize("level", LEVELS)
def test_answers_match_the_sampling_procedure(level):
    for seed in SEEDS:
        for pr in generate_problems(seed, 5, level):
            assert pr.answer == expected_answer(pr), (seed, pr)


def test_worked_example_answers_by_hand():
    # min = (1/10, 3/10, 1/5): alpha = 3/5; Z = 2/5; r = (0, 3/4, 1/4); Z*r(B) = 3/10.
    assert worked_example("alpha").answer == F(3, 5)
    assert worked_example("z").answer == F(2, 5)
    assert worked_example("r", "B").answer == F(3, 4)
    assert worked_example("r", "A").answer == 0
    assert worked_example("correction", "B").answer == F(3, 10)
    assert worked_example("branch").answer == "rejection"
    assert equal_problem("branch").answer == "no-rejection"


@pytest.mark.parametrize(
    "text",
    ["3/4", "6/8", " 3 / 4 ", "0.75", ".75", "0.7500", "75%", "0,75", "7.5e-1", "+0.75", "0.754", "0.746", "0.755"],
)
def test_equivalent_forms_accepted(text):
    assert check_answer(worked_example("r", "B"), text).correct


@pytest.mark.parametrize("text", ["0.756", "0.744", "0.7", "3/5", "74/100", "76/100", "-3/4", "1", "undefined"])
def test_near_misses_rejected(text):
    check = check_answer(worked_example("r", "B"), text)
    assert not check.correct and check.counted


def test_fraction_must_be_exact_decimal_within_tolerance():
    # p = (1/3, 1/3, 1/3), q = (1/2, 1/2, 0): Z = max(0, 1/3 - 0) = 1/3.
    tokens = ("A", "B", "C")
    pr = Problem(
        1, 0, "zeros", "z", None, Distribution(tokens, (F(1, 3),) * 3), Distribution(tokens, (F(1, 2), F(1, 2), F(0)))
    )
    assert pr.answer == F(1, 3)
    for good in ("1/3", "2/6", "0.333", ".33", "0.3333", "0.329", "0.338"):
        assert check_answer(pr, good).correct, good
    for bad in ("33/100", "333/1000", "0.328", "0.339", "0.3"):
        assert not check_answer(pr, bad).correct, bad
    assert "exact" in check_answer(pr, "33/100").message


@pytest.mark.parametrize("text", ["", "abc", "3/0", "1/2/3", "0.7.5"])
def test_unreadable_input_does_not_count(text):
    check = check_answer(worked_example(), text)
    assert not check.correct and not check.counted


@pytest.mark.parametrize("text", ["undefined", "Undefined", "not defined", "no-rejection", "No rejection", "none"])
def test_z0_trick_accepts_undefined(text):
    assert check_answer(equal_problem("r"), text).correct


@pytest.mark.parametrize("text", ["0", "1/4", "1", "0.25", "rejection"])
def test_z0_trick_rejects_numbers(text):
    assert not check_answer(equal_problem("r"), text).correct


def test_branch_question():
    assert check_answer(worked_example("branch"), "rejection").correct
    assert not check_answer(worked_example("branch"), "no-rejection").correct
    assert check_answer(equal_problem("branch"), "no-rejection").correct
    assert not check_answer(equal_problem("branch"), "rejection").correct
    assert not check_answer(equal_problem("branch"), "0").counted


def test_parse_answer_forms():
    assert parse_answer("3/4").form == "fraction"
    assert parse_answer("1").form == "fraction"
    assert parse_answer(".75").form == "decimal" and parse_answer(".75").value == F(3, 4)
    assert parse_answer("undefined").form == "word"


# --- hints, solutions, tries, score ----------------------------------------------------------------


def test_hint_ladder_stops_short_of_the_asked_quantity():
    ladder = hints(worked_example("alpha"))
    assert len(ladder) == 4
    assert "A: 1/10, B: 3/10, C: 1/5" in ladder[0]  # min values given
    assert "3/5" not in "".join(ladder[1:])  # alpha itself is not given away
    r_ladder = hints(worked_example("r", "B"))
    assert "α = 3/5" in r_ladder[1] and "Z = 2/5" in r_ladder[2] and "3/4" not in r_ladder[3]


def test_worked_solution_ends_with_the_answer():
    lines = worked_solution(worked_example("correction", "B"))
    assert lines[-1] == "Answer: 3/10 (0.3)."
    assert any("3/10 + 3/10 = 3/5 = p(B)" in line for line in lines)
    assert "never evaluated" in " ".join(worked_solution(equal_problem("r")))


def test_tries_solution_after_two_and_score():
    pr = worked_example("r", "B")
    attempt = Attempt()
    record_try(attempt, pr, "nonsense")
    assert attempt.tries == 0
    record_try(attempt, pr, "1/2")
    assert attempt.tries == 1 and not attempt.show_solution
    record_try(attempt, pr, "0.5")
    assert attempt.tries == 2 and attempt.show_solution and not attempt.correct
    record_try(attempt, pr, ".75")
    assert attempt.correct and attempt.tries == 3 and attempt.answer == ".75"
    record_try(attempt, pr, "0")  # after a correct answer nothing changes
    assert attempt.correct and attempt.tries == 3
    first = Attempt()
    record_try(first, pr, "3/4")
    score = running_score({1: attempt, 2: first, 3: Attempt()}, 5)
    assert (score.correct, score.attempted, score.total, score.first_try) == (2, 2, 5, 1)


def test_predict_score_is_total_variation():
    # truth (0, 3/4, 1/4), bars (0, 1/2, 1/2): TV = (1/4 + 1/4) / 2 = 1/4.
    result = score_prediction((F(0), F(3, 4), F(1, 4)), (0.0, 0.5, 0.5))
    assert result.tv == F(1, 4) and not result.close and result.score == F(3, 4)
    assert score_prediction((F(0), F(3, 4), F(1, 4)), (0.0, 0.75, 0.25)).tv == 0
    assert score_prediction((F(0), F(3, 4), F(1, 4)), (0.05, 0.7, 0.25)).close


# --- parameters ----------------------------------------------------------------------------------


@pytest.mark.parametrize(
    "call",
    [
        lambda: parse_seed("x"),
        lambda: parse_seed(-1),
        lambda: parse_count(0),
        lambda: parse_count("31"),
        lambda: parse_level("hard"),
        lambda: parse_seed(True),
        lambda: parse_count("2.5"),
    ],
)
def test_bad_parameters_raise(call):
    with pytest.raises(ExerciseInputError):
        call()


def test_good_parameters():
    assert parse_seed(" 42 ") == 42 and parse_count("30") == 30 and parse_level("Z0") == "z0"


def test_texts_match_prediction_is_graded_from_what_was_computed():
    from fractions import Fraction

    from lab.teaching.exercises import TEXTS_MATCH_CHOICES, grade_texts_match, texts_match_answer

    assert set(TEXTS_MATCH_CHOICES) == {"same-text", "same-law", "other-law"}
    # 88 of 1,000 texts matched, the law's distance is exactly 0: the texts differ, the law is the same
    assert texts_match_answer(88, 1000, Fraction(0)) == "same-law"
    assert texts_match_answer(1000, 1000, Fraction(0)) == "same-text"
    assert texts_match_answer(3, 1000, Fraction(1, 8)) == "other-law"
    right = grade_texts_match("same-law", 88, 1000, Fraction(0))
    assert right.correct and right.counted and "88 of 1000 runs wrote the same text" in right.message
    wrong = grade_texts_match("other-law", 88, 1000, Fraction(0))
    assert not wrong.correct and "distance 0" in wrong.message
    assert not grade_texts_match(None, 88, 1000, Fraction(0)).counted


def test_the_sheet_records_tries_hints_and_reveals():
    from lab.models.exercises import Sheet

    problem = worked_example("r", "B")  # r(B) = (3/5 - 3/10) / (2/5) = 3/4
    sheet = Sheet(0, 1, "basic", [problem], [], presenting=False, teacher=False, link_token="")
    # nothing typed: a warning, announced as a refusal, and no try counted
    attempt, said = sheet.submit(problem, "  ")
    assert attempt is None and sheet.feedback[1] == ("warning", "Type an answer first.")
    assert said[0] == "" and said[1].endswith("Type an answer first.")
    # a wrong answer counts as try 1 and is returned to be saved
    attempt, said = sheet.submit(problem, "1/2")
    assert attempt is sheet.attempts[1] and attempt.tries == 1 and not attempt.correct
    assert sheet.feedback[1][0] == "error" and said[0].startswith(f"{problem.title}, try 1: ")
    # 3/4 is right on try 2; a later Check says so without counting a try or announcing again
    attempt, said = sheet.submit(problem, "3/4")
    assert attempt.correct and attempt.tries == 2 and sheet.feedback[1][0] == "success"
    assert sheet.submit(problem, "0.1") == (None, None) and sheet.attempts[1].tries == 2
    # four hints (min, α, Z, r) count up to the last one and stay there
    for _ in range(6):
        attempt, said = sheet.hint(problem)
    assert attempt.hints_used == 4 and said[0].startswith(f"{problem.title}, hint 4: ")
    assert sheet.reveal(problem)[0].endswith("the worked solution is open below the problem.") and 1 in sheet.revealed
    sheet.check_bars(1, (0.0, 0.75, 0.25))
    assert sheet.checked_bars == {1: (0.0, 0.75, 0.25)}


# --- several candidates: the second candidate's test -----------------------------------------------------------


def test_the_second_candidate_by_hand():
    """p = (1/2, 2/5, 1/10), q = (2/5, 1/5, 2/5): max(0, p - q) = (1/10, 1/5, 0), Z = 3/10, r = (1/3, 2/3, 0). The
    second candidate A is kept with min(1, r(A)/q(A)) = min(1, (1/3)/(2/5)) = 5/6; tested against p it would be
    min(1, (1/2)/(2/5)) = 1, and r(A) itself is 1/3."""
    tokens = ("A", "B", "C")
    p = Distribution(tokens, (F(1, 2), F(2, 5), F(1, 10)))
    q = Distribution(tokens, (F(2, 5), F(1, 5), F(2, 5)))
    problem = Problem(1, 0, "several", "second", "A", p, q)
    assert problem.answer == F(5, 6)
    assert check_answer(problem, "5/6").correct
    assert "tested the second candidate against p" in check_answer(problem, "1").message
    assert "That is r(A), the residual itself" in check_answer(problem, "1/3").message
    assert hints(problem)[2].endswith("r = A: 1/3, B: 2/3, C: 0.")  # r's values before the asked step
    assert hints(problem)[3].endswith("min(1, r(x) / q(x)).")
    assert worked_solution(problem)[-1] == "Answer: 5/6 (0.833333)."


def test_the_several_level_asks_the_second_candidate_and_never_changes_the_other_levels():
    kinds = [p.kind for p in generate_problems(3, 5, "several")]
    assert kinds.count("second") == 3 and set(kinds) == {"second", "r", "z"}
    for pr in generate_problems(3, 10, "several"):
        assert pr.result.z > 0 and all(v > 0 for v in pr.q.values)
