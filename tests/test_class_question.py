"""The class activity's question and answer (lab.teaching.class_question) and the Class page drawing them:
before the teacher's reveal a class screen shows p and q and the prompt, and no rendering of the answer; after
it, the exact answer, Z, the reconstruction and (worked example) the Binomial lab's link. Expected values are
the hand-derived ones of tests/answer_text.py."""

from __future__ import annotations

from fractions import Fraction as F

import pytest
from answer_text import ANSWERS, NO_REJECTION, apptest_text, leaks, states
from pagetest import open_linked_page

from lab.classroom import admission, answers, classes
from lab.classroom.activities import predict_spec, scenario_choices, source_choices, summarize_predictions
from lab.core.scenarios import scenario_names
from lab.teaching.class_question import (
    WORKED_EXAMPLE,
    ClassQuestionError,
    class_answer,
    class_question,
    second_target,
)

PAGE = "lab/views/live_class/classroom.py"
WORKED = ANSWERS["bernoulli-residual"]


def question_text(question) -> str:
    rows = " ".join(" ".join(row) for row in question.pq_rows())
    return " ".join((question.title, question.prompt, question.pq_alt(), rows, *question.fields))


def test_every_shipped_one_step_scenario_has_a_hand_answer():
    assert set(scenario_names()) == set(ANSWERS) | NO_REJECTION
    assert set(scenario_choices()) == set(ANSWERS)


def test_the_worked_example_question_shows_p_and_q_and_asks_for_b_and_c():
    question = class_question(WORKED_EXAMPLE)
    assert question.tokens == ("A", "B", "C")
    assert question.p == (F(1, 10), F(3, 5), F(3, 10)) and question.q == (F(1, 2), F(3, 10), F(1, 5))
    assert question.asked == ("B", "C") and question.not_asked == ("A",) and not question.ask_z
    assert question.fields == ("r(B)", "r(C)")
    assert "A has zero residual mass" in question.prompt
    assert question.pq_rows()[1] == ("B", "3/5 (0.6)", "3/10 (0.3)")
    text = question_text(question)
    assert leaks(text, WORKED, ("B", "C")) == []
    for shown in ("3/4", "0.75", "1/4", "0.25", "success p", "2/5", "0.4"):
        assert shown not in text


def test_the_worked_example_answer():
    answer = class_answer(WORKED_EXAMPLE)
    assert answer.fields == ("r(B)", "r(C)") and answer.exact == (F(3, 4), F(1, 4))
    assert (answer.z, answer.alpha) == (F(2, 5), F(3, 5))
    assert answer.exact_lines()[:2] == ["r(B) = 3/4 (0.75)", "r(C) = 1/4 (0.25)"]
    assert answer.exact_lines()[2].startswith("Z = 2/5 (0.4)")
    # min(p, q) + Z r = p: A 1/10 + 0, B 3/10 + 2/5 * 3/4 = 3/5, C 1/5 + 2/5 * 1/4 = 3/10
    assert answer.reconstruction_cells() == [
        ("A", "1/10", "0", "0", "1/10", "1/10"),
        ("B", "3/10", "3/4", "3/10", "3/5", "3/5"),
        ("C", "1/5", "1/4", "1/10", "3/10", "3/10"),
    ]
    assert answer.recovers_target
    assert answer.lab_link.page == "binomial-lab"  # the page's address (lab/views/shell.py: Binomial lab)
    assert answer.lab_link.params == {"lab_p": "0.75", "n": "1"}
    assert "lab success p = 0.75, n = 1" in answer.lab_link.text


@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_every_scenario_question_hides_its_answer_and_the_answer_is_exact(name):
    hand = ANSWERS[name]
    question = class_question(name)
    assert (question.tokens, question.p, question.q) == (hand.tokens, hand.p, hand.q)
    assert question.asked == hand.tokens and question.ask_z
    assert leaks(question_text(question), hand) == []
    answer = class_answer(name)
    assert answer.exact == (*hand.r, hand.z)
    assert (answer.z, answer.alpha, answer.residual) == (hand.z, hand.alpha, hand.r)
    assert [(row.accepted, row.correction, row.total) for row in answer.rows] == [
        (a, hand.z * r, a + hand.z * r) for a, r in zip(hand.accepted, hand.r)
    ]
    assert [row.total for row in answer.rows] == list(hand.p)
    assert answer.lab_link is None


def test_no_question_without_a_residual():
    with pytest.raises(ClassQuestionError, match="Z = 0"):
        class_question("equal-distributions")
    with pytest.raises(ClassQuestionError, match="unknown scenario"):
        class_question("no-such-scenario")
    with pytest.raises(ClassQuestionError, match="Z = 0"):  # one candidate is always kept: no second one is tested
        class_question(second_target("equal-distributions"))
    with pytest.raises(ClassQuestionError, match="unknown scenario"):
        class_question(second_target("no-such-scenario"))


# --- two drafts: predict p₂, the target the second candidate is tested against ---------------------------------


def test_a_teacher_can_open_the_second_candidates_target_of_every_scenario_with_a_residual():
    assert source_choices() == [
        WORKED_EXAMPLE, *sorted(ANSWERS), *(second_target(name) for name in sorted(ANSWERS))
    ]


def test_the_second_target_question_shows_p_and_q_and_asks_p2_for_every_token():
    question = class_question(second_target("bernoulli-residual"))
    assert question.tokens == question.asked == ("A", "B", "C") and not question.ask_z
    assert question.p == (F(1, 10), F(3, 5), F(3, 10)) and question.q == (F(1, 2), F(3, 10), F(1, 5))
    assert question.fields == ("p₂(A)", "p₂(B)", "p₂(C)")
    text = question_text(question)
    assert leaks(text, WORKED) == []
    # nor the probability that one of two candidates is kept, 4/5, nor the word that gives p₂ away
    for shown in ("4/5", "0.8", "residual"):
        assert shown not in text


def test_the_second_target_answer_of_the_hand_case():
    """p = (1/10, 3/5, 3/10), q = (1/2, 3/10, 1/5), two candidates with replacement, by hand:
    candidate 1 kept: min(p, q) = (1/10, 3/10, 1/5), so α = 3/5 and Z = 2/5; p₂ = max(0, p − q)/Z = (0, 3/4, 1/4).
    Candidate 2 (reached with 2/5) kept: 2/5 · min(p₂, q) = 2/5 · (0, 3/10, 1/5) = (0, 3/25, 2/25); it is rejected with
    1 − 1/2, so the correction (reached with 1/5) draws from max(0, p₂ − q)/(1/2) = (0, 9/10, 1/10): (0, 9/50, 1/50).
    Some candidate is kept with 3/5 + 2/5 · 1/2 = 4/5."""
    answer = class_answer(second_target("bernoulli-residual"))
    assert answer.fields == ("p₂(A)", "p₂(B)", "p₂(C)") and answer.exact == (0, F(3, 4), F(1, 4))
    assert (answer.z, answer.alpha, answer.kept) == (F(2, 5), F(3, 5), F(4, 5))
    lines = answer.exact_lines()
    assert lines[:3] == ["p₂(A) = 0", "p₂(B) = 3/4 (0.75)", "p₂(C) = 1/4 (0.25)"]
    assert "Z = 2/5 (0.4)" in lines[3] and lines[4] == "one of the two candidates is kept with probability 4/5 (0.8)"
    assert answer.reconstruction_header() == (
        "token", "kept at candidate 1", "kept at candidate 2", "correction", "sum", "p"
    )
    assert answer.reconstruction_cells() == [
        ("A", "1/10", "0", "0", "1/10", "1/10"),
        ("B", "3/10", "3/25", "9/50", "3/5", "3/5"),
        ("C", "1/5", "2/25", "1/50", "3/10", "3/10"),
    ]
    assert answer.recovers_target and answer.lab_link is None
    assert answer.sum_words == "kept at candidate 1 + kept at candidate 2 + correction"


@pytest.mark.parametrize("name", sorted(ANSWERS))
def test_every_scenarios_second_target_is_its_residual_and_the_stages_add_up_to_p(name):
    hand = ANSWERS[name]
    answer = class_answer(second_target(name))
    assert answer.exact == hand.r == answer.residual
    second_kept = [hand.z * min(r, q) for r, q in zip(hand.r, hand.q)]
    assert [row.first for row in answer.rows] == list(hand.accepted)
    assert [row.second for row in answer.rows] == second_kept
    assert [row.total for row in answer.rows] == list(hand.p)
    assert answer.kept == hand.alpha + sum(second_kept)
    assert leaks(question_text(class_question(second_target(name))), hand) == []


def test_the_class_diagnosis_names_the_second_candidate_tested_against_p():
    spec = predict_spec(second_target("bernoulli-residual"))
    assert spec.patterns() == {
        "second candidate tested against p": {0: F(1, 10), 1: F(3, 5), 2: F(3, 10)},
        "p − q not normalised by Z": {0: F(0), 1: F(3, 10), 2: F(1, 10)},
    }
    as_p, exact, unnormalised = (F(1, 10), F(3, 5), F(3, 10)), (F(0), F(3, 4), F(1, 4)), (F(0), F(3, 10), F(1, 10))
    assert [m.name for m in spec.diagnose(as_p)] == ["second candidate tested against p"]
    assert [m.name for m in spec.diagnose(unnormalised)] == ["p − q not normalised by Z"]
    assert spec.diagnose(exact) == ()
    summary = summarize_predictions(spec, [as_p, as_p, exact, unnormalised])
    assert (summary.pattern, summary.pattern_count, summary.submitted) == ("second candidate tested against p", 2, 4)
    assert summary.all_close_share == F(1, 4)
    assert summary.looked_for == ("second candidate tested against p", "p − q not normalised by Z")


# --- the Class page: students and the teacher's dashboard, before and after the reveal ---------------------


def page_links(at) -> list:
    return [el.proto for el in at.get("page_link")]


@pytest.mark.parametrize(
    "source, scenario, asked, guesses",
    [
        (WORKED_EXAMPLE, "bernoulli-residual", ("B", "C"), ["0.6", "0.35"]),  # none is an answer
        ("partial-zeros", "partial-zeros", None, ["0.3", "0.1", "0.2", "0.4", "0.6"]),
        (second_target("bernoulli-residual"), "bernoulli-residual", None, ["0.1", "0.55", "0.35"]),
    ],
)
def test_class_screens_before_and_after_the_reveal(data, source, scenario, asked, guesses):
    hand = ANSWERS[scenario]
    new = classes.create_class(data, "Period 3")
    classes.open_activity(data, new.code, new.teacher_token, "predict", {"source": source})
    token = admission.join_class(data, new.code, "Ann").student_token
    answers.submit_prediction(data, new.code, token, 1, guesses)
    screens = {
        "student": {"code": new.code, "student": token},
        "teacher": {"code": new.code, "teacher": new.teacher_token},
        "teacher presenting": {"code": new.code, "teacher": new.teacher_token, "present": "1"},
    }
    for who, params in screens.items():
        text = apptest_text(open_linked_page(PAGE, params))
        assert leaks(text, hand, asked) == [], who
        for t, a, b in zip(hand.tokens, hand.p, hand.q):  # the question: p and q, exact
            assert f"{t}: p {a}, q {b}" in text, who
        assert "success p" not in text, who
    classes.reveal(data, new.code, new.teacher_token)
    for who, params in screens.items():
        at = open_linked_page(PAGE, params)
        text = apptest_text(at)
        for value in hand.r:
            assert value == 0 or states(text, value), (who, value)
        assert f"Z = {hand.z}" in text, who
        sums = "kept at candidate 1 + kept at candidate 2 + correction" if "second" in source else "min(p, q) + Z·r"
        assert f"{sums} gives p for every token" in text, who
        links = page_links(at)
        if source == WORKED_EXAMPLE:
            assert "lab success p = 0.75, n = 1" in text, who
            # a student's page links to no other page while the class runs (lab/views/live_class/holding.py)
            expected = [] if who == "student" else [("binomial-lab", "lab_p=0.75&n=1")]
            assert [(link.page, link.query_string) for link in links] == expected, who
        else:
            assert not links, who


def test_a_class_screens_texts_are_made_once_per_question_object():
    """Every page of a class draws the question and the answer at the same moment: each text is made once per
    question object (lab.views.live_class.question.once_per_object), and an equal but new object gets its own."""
    from lab.views.live_class.question import once_per_object

    made = []

    @once_per_object
    def text_of(obj):
        made.append(obj)
        return f"text of {obj[0]}"

    first, equal = ["worked-example"], ["worked-example"]
    assert text_of(first) == "text of worked-example" and text_of(first) == "text of worked-example"
    assert len(made) == 1
    assert text_of(equal) == "text of worked-example" and len(made) == 2  # identity, not equality
    assert made[0] is first and made[1] is equal
