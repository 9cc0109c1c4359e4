"""Anonymous joining (a class setting): students join without a name and each gets a random "Animal N", never
twice in a class, shown to them and to the teacher; the join-link page asks no name then. On SQLite and PostgreSQL
(the ``engine`` fixture)."""

from __future__ import annotations

import re

import pytest

from lab.classroom import admission, answers, classes, dashboards, naming, teacher_link
from lab.classroom.refusals import ClassroomError

ANIMAL_NAME = re.compile(r"([A-Z][a-z]+) ([1-9][0-9]?)")


def test_students_of_an_anonymous_class_get_random_names_never_twice(engine):
    new = classes.create_class(engine, "Lecture", anonymous=True)
    joined = [admission.join_class(engine, new.code, "", client=f"browser {i}") for i in range(30)]
    typed = admission.join_class(engine, new.code, "Ann Lovelace", client="typed")  # a typed name is not kept
    names = [j.name for j in [*joined, typed]]
    for name in names:
        match = ANIMAL_NAME.fullmatch(name)
        assert match and match[1] in naming.ANIMALS and 1 <= int(match[2]) <= naming.ANIMAL_NUMBERS, name
    assert len({naming.name_key(n) for n in names}) == len(names)
    assert answers.student_state(engine, new.code, typed.student_token).name == typed.name  # the student's page
    board = dashboards.dashboard(engine, new.code, new.teacher_token)
    assert sorted(s.label for s in board.students) == sorted(names) and "Ann Lovelace" not in str(board)


def test_a_class_that_asks_names_refuses_an_empty_one_as_it_refuses_no_class(engine):
    new = classes.create_class(engine, "Seminar")
    for code in (new.code, "QQQQQQ"):
        with pytest.raises(ClassroomError, match="Your name: type a name"):
            admission.join_class(engine, code, "  ", client="b")


def test_the_teacher_switches_anonymous_joining_for_new_students(engine):
    new = classes.create_class(engine)
    ann = admission.join_class(engine, new.code, "Ann")
    admission.set_anonymous(engine, new.code, new.teacher_token, True)
    assert ANIMAL_NAME.fullmatch(admission.join_class(engine, new.code, "Bob").name)
    assert answers.student_state(engine, new.code, ann.student_token).name == "Ann"  # kept
    admission.set_anonymous(engine, new.code, new.teacher_token, False)
    assert admission.join_class(engine, new.code, "Cat").name == "Cat"
    with pytest.raises(ClassroomError, match="not yes or no"):
        admission.set_anonymous(engine, new.code, new.teacher_token, "yes")
    with pytest.raises(ClassroomError, match="not yes or no"):
        classes.create_class(engine, anonymous=1)


def test_only_the_join_link_itself_tells_that_a_class_is_anonymous(engine):
    new = classes.create_class(engine, anonymous=True)
    key = teacher_link.check_teacher(engine, new.code, new.teacher_token).join_key
    assert admission.joins_without_names(engine, new.code, key)
    assert admission.joins_without_names(engine, new.code.lower(), key)
    for code, wrong in ((new.code, ""), (new.code, key[:-1] + "x"), ("QQQQQQ", key), ("bad code", key)):
        assert not admission.joins_without_names(engine, code, wrong)
    plain = classes.create_class(engine)
    plain_key = teacher_link.check_teacher(engine, plain.code, plain.teacher_token).join_key
    assert not admission.joins_without_names(engine, plain.code, plain_key)


def test_anonymous_names_run_out_into_student_numbers():
    every = [f"{animal} {n}" for animal in naming.ANIMALS for n in range(1, naming.ANIMAL_NUMBERS + 1)]
    assert naming.anonymous_name(every) == f"Student {len(every) + 1}"
    assert naming.anonymous_name(every[1:]) == every[0]
