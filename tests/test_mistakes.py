"""Which mistake does an answer match: the one home (lab.teaching.mistakes), the Exercises feedback built on
it, and the class's wrong-pattern diagnosis built on it. Values are derived by hand or from the sampling
procedure (exercise_reference.sampler_law), never from lab's own formulas."""

import re
from fractions import Fraction as F

import pytest
from exercise_reference import sampler_law

from lab.classroom.activities import predict_spec
from lab.core.distributions import Distribution
from lab.core.residual import residual_exact
from lab.teaching import mistakes
from lab.teaching.exercises import LEVELS, Problem, check_answer, generate_problems
from lab.teaching.mistakes import (
    ALPHA_FOR_Z,
    MISTAKES,
    NOT_DIVIDED_BY_Z,
    NUMBER_WITHOUT_REJECTION,
    P_FOR_R,
    R_FOR_CORRECTION,
    R_FOR_KEEP,
    TESTED_AGAINST_P,
    Z_FOR_ALPHA,
    Field,
    diagnose,
)

TOKENS = ("A", "B", "C")
# The worked example by hand: p = (1/10, 3/5, 3/10), q = (1/2, 3/10, 1/5); min = (1/10, 3/10, 1/5), alpha = 3/5,
# max(0, p - q) = (0, 3/10, 1/10), Z = 2/5, r = (0, 3/4, 1/4).
P = Distribution(TOKENS, (F(1, 10), F(3, 5), F(3, 10)))
Q = Distribution(TOKENS, (F(1, 2), F(3, 10), F(1, 5)))
WORKED = residual_exact(P, Q)


@pytest.mark.parametrize(
    ("field", "value", "mistake"),
    [
        (Field("r", "B"), F(3, 10), NOT_DIVIDED_BY_Z),  # max(0, p - q) = Z·r(B), not divided by Z
        (Field("r", "B"), F(3, 5), P_FOR_R),  # p(B)
        (Field("r", "B"), F(1, 2), ALPHA_FOR_Z),  # (3/10) / alpha
        (Field("r", "C"), F(1, 6), ALPHA_FOR_Z),  # (1/10) / (3/5)
        (Field("correction", "B"), F(3, 4), R_FOR_CORRECTION),  # r(B) where Z·r(B) = 3/10 is asked
        (Field("z"), F(3, 5), ALPHA_FOR_Z),
        (Field("alpha"), F(2, 5), Z_FOR_ALPHA),
        (Field("r", "B"), F(3, 4), None),  # right
        (Field("r", "B"), F(9, 10), None),  # wrong, but no known mistake
        (Field("z"), F(1, 2), None),
        (Field("correction", "B"), F(3, 5), None),
    ],
)
def test_the_worked_example_mistakes_by_hand(field, value, mistake):
    assert diagnose(WORKED, field, value) is mistake


def test_a_decimal_matches_within_its_tolerance_only():
    assert diagnose(WORKED, Field("r", "C"), F("0.167"), F(5, 1000)) is ALPHA_FOR_Z  # 1/6 as a decimal
    assert diagnose(WORKED, Field("r", "C"), F("0.167")) is None  # a fraction must match exactly
    assert diagnose(WORKED, Field("r", "C"), F("0.18"), F(5, 1000)) is None


def test_the_no_rejection_case_answered_with_a_number():
    same = Distribution(TOKENS, (F(1, 4), F(1, 4), F(1, 2)))
    result = residual_exact(same, same)
    assert diagnose(result, Field("r", "A"), F(1, 4)) is NUMBER_WITHOUT_REJECTION
    assert diagnose(result, Field("z"), F(1)) is ALPHA_FOR_Z  # alpha = 1 given for Z = 0
    assert diagnose(result, Field("correction", "A"), F(1, 4)) is None  # Z·r = 0; r itself has no value


def test_an_answer_two_mistakes_give_names_neither():
    # q(B) = 0: p(B) and max(0, p(B) - q(B)) are the same number, so a match is evidence of neither
    p = Distribution(TOKENS, (F(1, 4), F(1, 4), F(1, 2)))
    q = Distribution(TOKENS, (F(1, 2), F(0), F(1, 2)))
    assert diagnose(residual_exact(p, q), Field("r", "B"), F(1, 4)) is None


def mistaken_answers(problem):
    """(value, mistake) pairs derived from the sampling procedure for one exercise problem."""
    alpha, z, supplied, r = sampler_law(problem.p.values, problem.q.values)
    if problem.kind == "alpha":
        return [(z, Z_FOR_ALPHA)]
    if problem.kind == "z":
        return [(alpha, ALPHA_FOR_Z)]
    if problem.kind == "branch":
        return []
    i = problem.p.tokens.index(problem.token)
    if problem.kind == "correction":
        return [] if r is None else [(r[i], R_FOR_CORRECTION)]
    if problem.kind == "second":  # tested against p instead of r; or r itself given as the keep probability
        q = problem.q.values[i]
        return [(min(F(1), problem.p.values[i] / q), TESTED_AGAINST_P), (r[i], R_FOR_KEEP)]
    if r is None:
        return [(F(1, 3), NUMBER_WITHOUT_REJECTION)]
    found = [(problem.p.values[i], P_FOR_R), (supplied[i], NOT_DIVIDED_BY_Z)]
    if alpha:
        found.append((supplied[i] / alpha, ALPHA_FOR_Z))
    return found


def without_values(message: str) -> str:
    """A feedback message with the template's own numbers removed: max(0, ...) and Z = 0."""
    return message.replace("max(0,", "max(,").replace("Z = 0", "Z =")


@pytest.mark.parametrize("level", LEVELS)
def test_exercise_feedback_names_each_mistake_and_never_a_value(level):
    named = set()
    for seed in range(40):
        for problem in generate_problems(seed, 5, level):
            pairs = mistaken_answers(problem)
            values = [v for v, _ in pairs]
            for value, mistake in pairs:
                near = isinstance(problem.answer, F) and abs(value - problem.answer) <= F(5, 1000)
                if near or values.count(value) > 1:
                    continue  # not a mistake here, or two mistakes give the same number
                for text in (f"{value.numerator}/{value.denominator}", f"{float(value):.3f}"):
                    check = check_answer(problem, text)
                    assert not check.correct and check.counted
                    assert check.message == "Not yet. " + mistakes.feedback(mistake, problem.token), (problem, text)
                    assert not re.search(r"\d", without_values(check.message))  # names the mistake, no value
                    named.add(mistake.key)
    expected = {"p-for-r", "not-divided-by-z", "alpha-for-z", "z-for-alpha", "r-for-correction"}
    if level == "z0":
        expected = {"number-without-rejection", "alpha-for-z", "z-for-alpha"}
    if level == "disjoint":  # alpha = 0, Z = 1 and r = p: only the alpha / Z swap is a mistake here
        expected = {"alpha-for-z", "z-for-alpha"}
    if level == "several":  # the second candidate's test, r and Z
        expected = {"tested-against-p", "r-for-keep", "p-for-r", "not-divided-by-z", "alpha-for-z"}
    assert expected <= named


def test_exercise_feedback_is_generic_when_no_mistake_matches():
    problem = Problem(1, 0, "basic", "r", "B", P, Q)
    assert check_answer(problem, "9/10").message == "Not yet: 9/10 is not right. Try a hint."
    assert check_answer(problem, "0.9").message == "Not yet: 0.9 is more than 0.005 away. Try a hint."
    assert check_answer(problem, "3/10").message == (
        "Not yet. That is max(0, p(B) − q(B)) itself, which is Z·r(B), the correction term: "
        "r(B) divides it by Z."
    )
    assert check_answer(Problem(1, 0, "basic", "correction", "B", P, Q), "0.75").message.startswith(
        "Not yet. That is r(B), the residual itself"
    )


def test_the_class_diagnosis_comes_from_the_same_home():
    # worked example bars B and C: p over the bars (3/5, 3/10) / (9/10) = (2/3, 1/3); max(0, p - q) = (3/10, 1/10);
    # divided by alpha = 3/5: (1/2, 1/6)
    spec = predict_spec("worked-example")
    assert spec.patterns() == {
        "r proportional to p": {0: F(2, 3), 1: F(1, 3)},
        "p − q not normalised by Z": {0: F(3, 10), 1: F(1, 10)},
        "Z confused with α": {0: F(1, 2), 1: F(1, 6)},
    }
    assert spec.diagnose((F(3, 10), F(1, 10))) == (NOT_DIVIDED_BY_Z,)
    assert spec.diagnose((F(3, 4), F(1, 4))) == ()
    scenario = predict_spec("bernoulli-residual")  # r(A), r(B), r(C), Z: alpha for Z shows in Z itself
    assert scenario.patterns()["Z confused with α"] == {3: F(3, 5)}
    assert scenario.diagnose((F(0), F(3, 4), F(1, 4), F(3, 5))) == (ALPHA_FOR_Z,)
    assert scenario.diagnose((F(1, 10), F(3, 5), F(3, 10), F(2, 5))) == (P_FOR_R,)
    # the same Mistake objects the Exercises feedback names
    assert set(MISTAKES.values()) >= {ALPHA_FOR_Z, P_FOR_R, NOT_DIVIDED_BY_Z}
