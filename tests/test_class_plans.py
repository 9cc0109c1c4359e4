"""Lesson plans (lab.classroom.plans): the TOML file read with every value checked and refusals that name the
activity and the field; a plan kept with a class, opened from it, exported and read back unchanged, and run again by
a new class. The store parts on SQLite and PostgreSQL (the ``engine`` fixture)."""

from __future__ import annotations

import pytest

from lab.classroom import admission, answers, classes, plans, teacher_link
from lab.classroom.activities import ASSIGNMENT, PREDICT
from lab.classroom.plans import PlanError, read_plan

LECTURE = """
title = "Lecture 3"

[[activity]]
kind = "worked-example"

[[activity]]
kind = "scenario"
scenario = "eight-words"
countdown = 60

[[activity]]
kind = "second-target"
scenario = "pet-words"

[[activity]]
kind = "question"
title = "Three words"
tokens = "X, Y, W"
p = "0.5, 1/4, 1/4"
q = "1/4, 1/4, 1/2"
countdown = 30

[[activity]]
kind = "exercises"
seed = 7
level = "basic"
count = 3
"""


def test_a_plan_file_is_read_checked_and_written_back_unchanged():
    plan = read_plan(LECTURE)
    assert plan.title == "Lecture 3"
    assert [item.label() for item in plan.items] == [
        "Worked example: r(B) and r(C)",
        "Scenario: eight-words (countdown 60 s)",
        "Two drafts, p₂: pet-words",
        "Your own question: Three words (countdown 30 s)",
        "Exercises: seed 7, level basic, 3 problems",
    ]
    assert [item.kind for item in plan.items] == [PREDICT] * 4 + [ASSIGNMENT]
    written = plans.plan_toml(plan)
    assert 'p = "1/2,1/4,1/4"' in written  # the question in lowest terms
    assert read_plan(written) == plan
    assert read_plan(plans.plan_toml(read_plan(written))) == plan


@pytest.mark.parametrize(
    ("text", "message"),
    [
        ("x" * 70_000, "The file has 70,000 bytes; a lesson plan has at most 64,000."),
        (b"\xff\xfe title", "not text (UTF-8)"),
        ("title = ", "not a lesson plan in TOML"),
        ("title = 'x'", "The plan has no [[activity]]"),
        ("owner = 'me'\n[[activity]]\nkind='worked-example'", "'owner', which a lesson plan does not"),
        ("[[activity]]\nkind = 'poll'", "activity 1: kind 'poll' is not one of"),
        ("[[activity]]\nkind = 'scenario'", "activity 1: scenario is missing"),
        ("[[activity]]\nkind = 'scenario'\nscenario = 'nope'", "activity 1: scenario: unknown scenario 'nope'"),
        ("[[activity]]\nkind = 'worked-example'\ncountdown = 45",
         "activity 1: Countdown: '45' is not one of the lengths offered"),
        ("[[activity]]\nkind = 'worked-example'\nextra = 1", "activity 1: 'extra' is not a field"),
        ("[[activity]]\nkind = 'question'\ntokens = 'A,B'\np = '1/2,x'\nq = '1/2,1/2'", "activity 1: p: token 'B'"),
        ("[[activity]]\nkind = 'question'\ntitle = '=SUM(A1)'\ntokens = 'A,B'\np = '1,0'\nq = '0,1'",
         "activity 1, title: '=SUM(A1)' would run as a spreadsheet formula"),
        ("title = '@cmd'\n[[activity]]\nkind = 'worked-example'", "title: '@cmd' would run as a spreadsheet formula"),
        ("[[activity]]\nkind = 'exercises'\nseed = 1\nlevel = 'hard'\ncount = 3", "activity 1: level: 'hard'"),
        ("activity = 3", "activity: write each as an [[activity]] table"),
        ("[[activity]]\nkind = 'worked-example'\n" * 31, "31 activities; at most 30"),
    ],
)  # fmt: skip
def test_a_bad_plan_file_is_refused_by_name(text, message):
    with pytest.raises(PlanError) as info:
        read_plan(text)
    assert message in str(info.value)


def test_a_class_keeps_its_plan_opens_from_it_and_a_new_class_runs_it_again(engine):
    plan = read_plan(LECTURE)
    first = classes.create_class(engine, "Monday", plan=plans.stored_plan(plan))
    assert plans.class_plan(engine, first.code, first.teacher_token) == plan
    assert plans.open_from_plan(engine, first.code, first.teacher_token, 4) == 1
    token = admission.join_class(engine, first.code, "Ann").student_token
    activity = answers.student_state(engine, first.code, token).activity
    assert activity.spec.fields == ("r(X)", "r(Y)", "r(W)", "Z") and activity.timer_s == 30
    plans.remove_from_plan(engine, first.code, first.teacher_token, 1)
    item = plans.plan_item(PREDICT, {"source": "worked-example"})
    assert plans.add_to_plan(engine, first.code, first.teacher_token, item) == 5
    kept = plans.class_plan(engine, first.code, first.teacher_token)
    assert [i.label() for i in kept.items][0] == "Scenario: eight-words (countdown 60 s)"
    # the next lecture: a new class from the exported file runs the same plan
    second = classes.create_class(engine, "Tuesday", plan=plans.stored_plan(read_plan(plans.plan_toml(kept))))
    assert plans.class_plan(engine, second.code, second.teacher_token) == kept
    with pytest.raises(PlanError, match="no activity 9"):
        plans.open_from_plan(engine, second.code, second.teacher_token, 9)


def test_the_next_lecture_keeps_the_plan_and_settings_in_a_new_class(engine):
    plan = read_plan(LECTURE)
    first = classes.create_class(engine, "Monday", anonymous=True, plan=plans.stored_plan(plan))
    admission.set_expected_size(engine, first.code, first.teacher_token, 40)
    admission.join_class(engine, first.code, "")
    classes.end_class(engine, first.code, first.teacher_token)
    second = classes.next_class(engine, first.code, first.teacher_token)
    assert second.code != first.code and second.teacher_token != first.teacher_token and second.name == "Monday"
    assert plans.class_plan(engine, second.code, second.teacher_token) == plan
    klass = teacher_link.check_teacher(engine, second.code, second.teacher_token)
    assert klass.anonymous and klass.expected_size == 40 and klass.open
    joined = admission.join_class(engine, second.code, "Typed name")
    assert joined.name != "Typed name"  # anonymous, as the first class
    with pytest.raises(Exception, match="not valid|no class|teacher link"):
        classes.next_class(engine, first.code, "not-the-token")
