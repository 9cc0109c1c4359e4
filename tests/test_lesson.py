"""The Start-here lesson's numbers and checks (lab.teaching.lesson, lab.models.lesson), against values derived by
hand here, never read back from the engine.

The running example (scenario pet-words): p = (1/2, 1/4, 1/4), q = (1/4, 1/8, 5/8) over cat, dog, fish.
min(p, q) = (1/4, 1/8, 1/4), α = 5/8, max(0, p − q) = (1/4, 1/8, 0), Z = 3/8, r = (2/3, 1/3, 0).
"""

from __future__ import annotations

import random
from collections import Counter
from fractions import Fraction as F

import pytest

from lab.core.distributions import Distribution
from lab.core.scenarios import stated_answer
from lab.models.lesson import Lesson, LessonInputError, parse_chapter
from lab.teaching import lesson
from lab.teaching.glossary import TERMS
from lab.teaching.lesson import CHAPTER_COUNT, chapter, chapters

# each chapter's prediction, derived by hand
PREDICTIONS = {
    1: (1, 1, F(2, 5)),  # min(1, p/q): cat 2 -> 1, dog 2 -> 1, fish (1/4)/(5/8) = 2/5
    2: (F(1, 4), F(1, 8), F(1, 4), F(5, 8)),  # min(p, q) and α
    3: (F(3, 8), F(2, 3), F(1, 3), 0),  # Z, then r = (1/4, 1/8, 0) / (3/8)
    4: (0, 1, F(3, 10)),  # equal: Z = 0; disjoint: Z = 1; draft misses: p(C) + p(D) = 1/5 + 1/10
    5: (F(3, 4), F(1, 4)),  # worked example: max(0, p − q) = (0, 3/10, 1/10), Z = 2/5: r(B) = 3/4, r(C) = 1/4
    6: (250,),  # 1000 · p(fish) = 1000/4
    7: (F(125, 512),),  # α³ = (5/8)³
    # greedy draft: fish proposed every step, kept with p/q = (1/4)/(5/8) = 2/5;
    # resample from p: fish = kept 1/4 + Z · p(fish) = 1/4 + 3/8 · 1/4 = 11/32
    8: (F(2, 5), F(11, 32)),
}
# each question's answer, by hand
ANSWERS = {
    1: F(2, 5),  # (1/5)/(1/2)
    2: F(3, 4),  # min(3/4, 1/2) + min(1/4, 1/2)
    3: F(1, 2),  # (2/5 − 1/5) / (1/5 + 1/5)
    4: "undefined",  # p = q: Z = 0
    5: F(3, 10),  # Z · r(B) = 2/5 · 3/4
    6: F(1, 2),  # the output follows p: p(cat)
    7: 2,  # the kept first guess and the correction
    8: F(1, 4),  # p = (1/2, 1/2), q = (1, 0): A kept 1/2; the other 1/2 draws B from p with 1/2
}


def test_there_are_eight_chapters_in_order_each_with_a_tool_and_a_question():
    assert CHAPTER_COUNT == 8 and [c.number for c in chapters()] == list(range(1, 9))
    from lab.views.shell import PAGES

    paths = {p.url_path for p in PAGES}
    for item in chapters():
        assert item.tool[0] in paths and item.asks and item.question.prompt and item.revealed


@pytest.mark.parametrize("number", range(1, 9))
def test_each_prediction_is_exact(number):
    assert tuple(ask.answer for ask in chapter(number).asks) == tuple(F(v) for v in PREDICTIONS[number])


@pytest.mark.parametrize("number", range(1, 9))
def test_each_question_takes_its_answer_and_refuses_a_wrong_one(number):
    question = chapter(number).question
    right = ANSWERS[number]
    assert question.check(str(right)).correct
    assert not question.check("12345").correct and question.check("12345").counted
    unreadable = question.check("three quarters")
    assert not unreadable.correct and not unreadable.counted


def test_a_decimal_counts_within_half_a_hundredth_and_a_near_fraction_is_not_exact():
    question = chapter(1).question  # 2/5
    assert question.check("0.4").correct and question.check("0.404").correct and not question.check("0.41").correct
    close = question.check("401/1000")
    assert not close.correct and "not exact" in close.message


@pytest.mark.parametrize(
    "number, wrong, words",
    [
        (1, "5/2", "upside down"),
        (1, "1/5", "p(x) alone"),
        (1, "1/2", "draft's q(x)"),
        (2, "1/4", "rejection probability"),  # Z for α: shared mistakes module
        (2, "5/4", "larger of p and q"),
        (3, "1/5", "divides it by Z"),  # max(0, p − q) itself
        (3, "2/5", "target's own probability"),  # p(A) for r(A)
        (3, "1/3", "uses α"),  # (1/5) / α = (1/5)/(3/5)
        (4, "0", "no-rejection case"),
        (5, "3/4", "residual itself"),  # r(B) for Z · r(B)
        (5, "9/20", "uses α"),  # α · r(B) = 3/5 · 3/4: the product with α instead of Z
        (6, "1/4", "only what kept proposals give"),
        (7, "3", "ends the block"),
        (7, "4", "bonus"),
        (8, "1/2", "correct rule"),
        (8, "3/4", "probability of A"),
    ],
)
def test_a_wrong_answer_that_matches_a_known_mistake_is_named_without_its_value(number, wrong, words):
    verdict = chapter(number).question.check(wrong)
    assert not verdict.correct and verdict.counted and words in verdict.message
    assert str(ANSWERS[number]) not in verdict.message.replace(wrong, "")


@pytest.mark.parametrize("number", range(1, 9))
def test_nothing_before_the_reveal_states_the_prediction(number):
    """The chapter's text and prompt (on screen before Reveal) state none of the prediction's values, except where
    the value is also one of the p and q on screen (those are the question's data)."""
    item = chapter(number)
    before = " ".join((*item.text, item.predict, *(a.label for a in item.asks)))
    on_screen = {"1/2", "1/4", "5/8", "1/8", "1/10", "3/5", "3/10", "1/5", "1", "0"}  # p and q of the examples
    for ask in item.asks:
        from lab.core.formatting import fraction_text

        shown = fraction_text(ask.answer)
        if shown not in on_screen:
            assert shown not in before, (number, shown)
    if number <= 3:  # the chapters that ask for the example's α, Z and r (later ones build on them)
        pet = lesson.load_scenario(lesson.EXAMPLE)
        assert stated_answer(" ".join(item.text), pet.p, pet.q) is None


def test_the_step_story_draws_as_the_rule_says():
    """Chapter 1's seeded steps: over many seeds the outputs follow p (2,000 steps, a fixed set of seeds), and each
    story's numbers agree with its verdict."""
    outputs = Counter()
    for seed in range(2000):
        lines = lesson.step_story(seed)
        assert len(lines) == 3 and ("**kept**" in lines[1]) != ("**rejected**" in lines[1])
        outputs[lines[-1].rsplit("**", 2)[-2]] += 1
    for word, p in (("cat", 0.5), ("dog", 0.25), ("fish", 0.25)):
        assert abs(outputs[word] / 2000 - p) < 0.04, outputs


def test_the_run_counts_follow_p_and_the_two_runs_write_different_text():
    run = lesson.run(7)
    assert len(run.speculative) == len(run.direct) == 1000 and run.speculative[:20] != run.direct[:20]
    for word, p in (("cat", 0.5), ("dog", 0.25), ("fish", 0.25)):
        assert abs(run.speculative.count(word) / 1000 - p) < 0.05
        assert abs(run.direct.count(word) / 1000 - p) < 0.05


def test_a_block_ends_at_its_first_rejection_or_adds_a_bonus():
    endings = Counter()
    for seed in range(300):
        lines = lesson.block_story(seed)
        added = int(lines[-1].split("adds ")[1].split(" ")[0])
        rejected = sum("**rejected**" in line for line in lines)
        assert rejected <= 1
        if rejected:
            assert added == sum("**kept**" in line for line in lines) + 1
        else:
            assert added == 4 and "bonus" in lines[-2]
        endings[added] += 1
    # P(all three kept) = 125/512 ≈ 0.244
    assert abs(endings[4] / 300 - 125 / 512) < 0.08


def test_independent_sampler_agrees_with_the_edge_case_zs():
    """An enumerator written apart from the engine: Z = Σ max(0, p − q) of the three edge cases, from the files."""
    for name, z in zip(lesson.EDGE_CASES, (0, 1, F(3, 10))):
        s = lesson.load_scenario(name)
        assert sum(max(F(0), a - b) for a, b in zip(s.p.values, s.q.values)) == z


# --- progress --------------------------------------------------------------------------------------------------


def test_progress_round_trips_through_its_stored_text():
    state = Lesson()
    state.reveal(1, ["1", "1", "2/5"])
    assert not state.answer(1, "1/2").correct
    assert state.answer(1, "2/5").correct
    state.go(3)
    back = Lesson.from_text(state.to_text())
    assert back.current == 3 and back.done == (1,) and back.of(1).tries == 2 and back.of(1).revealed
    assert back.of(1).predictions == ["1", "1", "2/5"]


def test_a_stored_right_answer_is_checked_again_not_taken_on_the_browsers_word():
    text = '{"v":1,"at":2,"ch":{"2":{"pred":[],"rev":true,"ans":"1/3","tries":1,"ok":true}}}'
    assert Lesson.from_text(text).done == ()


@pytest.mark.parametrize(
    "text",
    [
        "not json",
        "[]",
        '{"v":2}',
        '{"v":1,"ch":{"9":{}}}',
        '{"v":1,"ch":{"1":{"pred":["a","b","c","d"]}}}',
        '{"v":1,"ch":{"1":{"tries":-1}}}',
        '{"v":1,"ch":{"1":{"ans":5}}}',
        '{"v":1,"ch":[]}',
        "x" * 5000,
    ],
)
def test_a_stored_text_the_lesson_cannot_use_is_refused_by_name(text):
    with pytest.raises(LessonInputError, match="saved|chapter"):
        Lesson.from_text(text)


@pytest.mark.parametrize("raw", ["0", "9", "-1", "1.5", "abc", "", "9" * 400])
def test_a_chapter_link_outside_one_to_eight_is_refused(raw):
    with pytest.raises(LessonInputError, match="not a chapter number from 1 to 8"):
        parse_chapter(raw)


def test_merge_keeps_this_sessions_work_and_adds_the_browsers():
    mine, saved = Lesson(), Lesson()
    mine.answer(2, "1/4")
    saved.answer(2, "3/4")
    saved.answer(3, "1/2")
    mine.merge(saved)
    assert mine.done == (3,) and mine.of(2).tries == 1


def test_glossary_defines_every_term_the_issue_lists():
    slugs = {t.slug for t in TERMS}
    assert {"target", "draft", "proposal", "kept", "rejected", "residual", "alpha", "z", "law", "tv"} <= slugs
    z = next(t for t in TERMS if t.slug == "z")
    assert "Z = Σ max(0, p − q) = 1 − α" in z.meaning


def test_every_glossary_link_in_the_chapters_names_a_term():
    import re

    slugs = {t.slug for t in TERMS}
    for item in chapters():
        for slug in re.findall(r"\(glossary#([a-z]+)\)", " ".join(item.text + item.revealed)):
            assert slug in slugs


def test_the_shared_mistakes_name_alpha_times_r_in_a_correction():
    """Exercises' second-wrong-answer papercut: α · r(t) for Z · r(t) is a known mistake (the product with α)."""
    from lab.core.residual import residual_exact
    from lab.teaching.mistakes import CORRECTION, Field, diagnose

    p = Distribution(("A", "B", "C"), (F(1, 10), F(3, 5), F(3, 10)))
    q = Distribution(("A", "B", "C"), (F(1, 2), F(3, 10), F(1, 5)))
    mistake = diagnose(residual_exact(p, q), Field(CORRECTION, "B"), F(9, 20))
    assert mistake is not None and "α" in mistake.feedback


def test_seeded_uniforms_are_reproducible():
    assert lesson.step_story(5) == lesson.step_story(5)
    assert random.Random(5).random() == random.Random(5).random()


# --- Exercises' attempts kept in the browser ----------------------------------------------------------------------


def test_exercises_attempts_round_trip_and_rightness_is_checked_again():
    from lab.models.exercises import attempts_from_text, attempts_text
    from lab.teaching.exercises import Attempt, generate_problems

    problems = generate_problems(7, 3)
    right = problems[0].answer_text
    stored = attempts_text({1: Attempt(right, True, 2, 1), 2: Attempt("12345", False, 1, 0), 3: Attempt()})
    back = attempts_from_text(stored, problems)
    assert set(back) == {1, 2} and back[1].correct and back[1].tries == 2 and back[1].hints_used == 1
    assert not back[2].correct
    forged = stored.replace('"12345"', f'"{right}"')  # a wrong answer's row claiming another's right answer
    assert attempts_from_text(forged, problems)[2].correct == (problems[1].answer_text == right)


@pytest.mark.parametrize(
    "text", ["{", '{"v":2,"a":{}}', '{"v":1,"a":{"9":["1",1,0]}}', '{"v":1,"a":{"1":["1",-1,0]}}', "x" * 30_000]
)
def test_exercises_stored_text_that_cannot_be_used_is_refused(text):
    from lab.models.exercises import attempts_from_text
    from lab.teaching.exercises import generate_problems

    with pytest.raises(ValueError, match="saved answer"):
        attempts_from_text(text, generate_problems(7, 3))


def test_exercises_second_wrong_answer_is_diagnosed_too():
    """The papercut: the first wrong answer got a diagnosis, a second one ('α·r' for 'Z·r') did not."""
    from lab.teaching.exercises import Attempt, Problem, record_try

    p = Distribution(("A", "B", "C"), (F(1, 10), F(3, 5), F(3, 10)))
    q = Distribution(("A", "B", "C"), (F(1, 2), F(3, 10), F(1, 5)))
    problem = Problem(1, 0, "basic", "correction", "B", p, q)
    attempt = Attempt()
    first = record_try(attempt, problem, "3/4")  # r(B) for Z·r(B)
    second = record_try(attempt, problem, "9/20")  # α·r(B) = 3/5 · 3/4
    assert "residual itself" in first.message and "uses α" in second.message and attempt.tries == 2
