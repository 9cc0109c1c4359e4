"""The Class page's state changes (lab.classroom.actions): what each returns for the page to say, on SQLite and
PostgreSQL (the ``engine`` fixture), and under a database outage (an engine whose file cannot be opened)."""

from __future__ import annotations

import re
from datetime import datetime
from fractions import Fraction

from sqlalchemy import create_engine

from lab.classroom import admission, answers, classes, dashboards, refusals, teacher_link
from lab.classroom.actions import (
    DATABASE_DOWN,
    MAYBE_SAVED,
    PENDING,
    PREDICT_LABEL,
    TEACHER_DOWN,
    Feedback,
    StudentSeat,
    TeacherDesk,
    attempt,
    clock,
    join_from_landing,
    link_key,
    start_class,
)
from lab.classroom.activities import ASSIGNMENT, PREDICT

SAVED = re.compile(r"Saved at \d\d:\d\d:\d\d\. You can change it until the vote is locked or the answer revealed\.")


def unreachable():
    """An engine on a file in a folder that does not exist: every connection fails as an outage does."""
    return create_engine("sqlite:////nonexistent-folder-of-the-test/classroom.db")


def test_clock_is_the_wall_clock_of_a_stored_time():
    assert clock(None) == ""
    assert clock(datetime(2026, 12, 1, 9, 5, 7).timestamp()) == "09:05:07"


def test_the_link_key_goes_only_with_the_code_the_link_filled_in():
    assert link_key("k7m-2qx", "K7M2QX", "key") == "key"  # case and dashes do not make another code
    assert link_key("K7M2QY", "K7M2QX", "key") == ""  # another code typed by hand
    assert link_key("", "K7M2QX", "key") == ""  # no code at all: no key, and no exception


def test_attempt_turns_a_refusal_and_an_outage_into_words():
    def refused():
        raise refusals.ClassroomError("No.")

    def down():
        raise OSError("connection refused")

    assert attempt(lambda: 7, "down") == (7, "")
    assert attempt(refused, "down") == (None, "No.")
    assert attempt(down, "down") == (None, "down")


def test_joining_and_starting_say_what_an_outage_did_not_do():
    db = unreachable()
    assert join_from_landing(db, "K7M2QX", "Ann", client="c", address="a", link_code="", key="")[1] == (
        "The class database cannot be reached right now, so you have not joined yet. What you typed stays on this "
        "page; it tries again by itself every few seconds and carries on when the database is back."
    )
    assert start_class(db, "Period 3")[1].startswith("The class database cannot be reached right now, so no class")


def test_join_and_start(engine):
    new, refusal = start_class(engine, "Period 3")
    assert refusal == "" and teacher_link.check_teacher(engine, new.code, new.teacher_token).name == "Period 3"
    joined, refusal = join_from_landing(
        engine, new.code.lower(), "Ann", client="c", address="a", link_code=new.code, key=""
    )
    assert refusal == "" and joined.code == new.code
    assert answers.student_state(engine, new.code, joined.student_token).name == "Ann"
    assert join_from_landing(engine, new.code, "", client="c2", address="a", link_code="", key="")[0] is None


def test_teacher_actions_return_their_refusal(engine):
    new = classes.create_class(engine)
    desk = TeacherDesk(new.code, new.teacher_token)
    assert desk.act(engine, classes.lock) == "No activity is open: open one first."
    assert desk.open_activity(engine, PREDICT_LABEL, "worked-example", None, None, None) == ""
    activity = dashboards.dashboard(engine, new.code, new.teacher_token).activity
    assert activity.kind == PREDICT and not activity.locked
    assert TeacherDesk(new.code, "not-the-token").act(engine, classes.lock)  # refused: nothing changes
    assert not dashboards.dashboard(engine, new.code, new.teacher_token).activity.locked
    assert desk.act(engine, classes.lock) == ""
    assert dashboards.dashboard(engine, new.code, new.teacher_token).activity.locked
    assert desk.act(engine, classes.next_activity) == ""
    assert desk.open_activity(engine, "Exercises assignment", "worked-example", 12, "zeros", 3) == ""
    activity = dashboards.dashboard(engine, new.code, new.teacher_token).activity
    assert activity.kind == ASSIGNMENT and len(activity.spec.problems) == 3
    assert desk.act(unreachable(), classes.lock) == TEACHER_DOWN


def test_new_teacher_link_and_join_address(engine):
    new = classes.create_class(engine)
    desk = TeacherDesk(new.code, new.teacher_token)
    assert desk.new_teacher_link(engine) == ""
    assert desk.token != new.teacher_token
    assert teacher_link.check_teacher(engine, new.code, desk.token).code == new.code
    assert TeacherDesk(new.code, new.teacher_token).new_teacher_link(engine)  # the old link is refused
    assert desk.set_join_address(engine, "http://192.168.1.20:8501") == ""
    assert teacher_link.check_teacher(engine, new.code, desk.token).join_address == "http://192.168.1.20:8501"
    assert desk.set_join_address(engine, "ftp://example").startswith("Address for students:")


def test_a_prediction_is_saved_or_says_why_not(engine):
    new = classes.create_class(engine)
    desk = TeacherDesk(new.code, new.teacher_token)
    desk.open_activity(engine, PREDICT_LABEL, "worked-example", None, None, None)
    seat = StudentSeat(new.code, admission.join_class(engine, new.code, "Ann").student_token)
    activity = answers.student_state(engine, seat.code, seat.token).activity
    fields = activity.spec.fields
    assert len(fields) == 2
    # an empty box is named, before the database is asked (none is given)
    assert seat.submit_prediction(None, activity.id, fields, [0.6, None], 1) == Feedback(
        "warning", f"Type a value for {fields[1]} first."
    )
    said = seat.submit_prediction(engine, activity.id, fields, [0.6, 0.4], 1)
    assert said.kind == "success" and SAVED.fullmatch(said.text)
    assert answers.student_state(engine, seat.code, seat.token).prediction == (Fraction(3, 5), Fraction(2, 5))
    assert seat.submit_prediction(engine, activity.id, fields, [0.5, 0.5], 2) == Feedback(
        "error", "Your teacher opened round 1 of this question: this answer was not saved. Vote again."
    )
    desk.act(engine, classes.lock)
    assert seat.submit_prediction(engine, activity.id, fields, [0.5, 0.5], 1) == Feedback(
        "error", "Your teacher has locked this activity: answers can no longer change."
    )
    assert seat.submit_prediction(unreachable(), activity.id, fields, [0.5, 0.5], 1) == Feedback("error", DATABASE_DOWN)


def test_an_answer_is_checked_and_saved_or_not(engine):
    new = classes.create_class(engine)
    TeacherDesk(new.code, new.teacher_token).open_activity(engine, "Exercises assignment", "", 12, "zeros", 3)
    seat = StudentSeat(new.code, admission.join_class(engine, new.code, "Ann").student_token)
    activity = answers.student_state(engine, seat.code, seat.token).activity
    unread = seat.submit_answer(engine, activity.id, 1, "what?")
    assert unread.kind == "warning" and unread.text.endswith(" Not saved.")
    wrong = seat.submit_answer(engine, activity.id, 1, "7/3")  # never a probability: counted, wrong
    assert wrong.kind == "error" and wrong.text.endswith(" Saved.")
    right = seat.submit_answer(engine, activity.id, 1, activity.spec.problems[0].answer_text)
    assert right.kind == "success" and right.text.endswith(" Saved.")
    attempt_saved = answers.student_state(engine, seat.code, seat.token).attempts[1]
    assert attempt_saved.correct and attempt_saved.tries == 2
    assert seat.submit_answer(engine, activity.id, 9, "1/2") == Feedback(
        "error", "Problem 9 is not part of this assignment (1 to 3)."
    )
    assert seat.submit_answer(unreachable(), activity.id, 2, "1/2") == Feedback("error", DATABASE_DOWN)


def test_a_new_teacher_link_the_database_answers_late_still_reaches_the_desk(tmp_path, monkeypatch):
    """New teacher link while the database does not answer in time (SQLite's write lock held elsewhere, longer
    than the page's wait): the page says it may still be saved (or, given somewhere to keep the call, that it
    waits: PENDING); once the database answers, the replacement is saved and the desk holds the new token, so the
    teacher's tab still opens its dashboard (the old link is refused from then on)."""
    import time

    from lab.classroom.db import prepare
    from lab.classroom.gate import TIMEOUT_ENV

    monkeypatch.setenv(TIMEOUT_ENV, "0.5")
    db = prepare(create_engine(f"sqlite:///{tmp_path / 'classroom.db'}"))
    new = classes.create_class(db, "late")
    desk = TeacherDesk(new.code, new.teacher_token)

    def held_lock(replace):
        with db.connect().execution_options(sqlite_begin="IMMEDIATE") as holder:
            holder.begin()  # the write lock, held past the page's wait
            said = replace()
            holder.rollback()
        return said

    def replaced(old: str) -> bool:
        try:
            teacher_link.check_teacher(db, new.code, old)
        except refusals.ClassroomError:
            return True
        return False

    old = desk.token
    assert held_lock(lambda: desk.new_teacher_link(db)) == MAYBE_SAVED
    for _wait in range(100):  # the database answers: the replacement runs
        if replaced(old):
            break
        time.sleep(0.1)
    assert replaced(old) and desk.token != old
    assert teacher_link.check_teacher(db, new.code, desk.token).code == new.code

    old, handed = desk.token, []
    assert held_lock(lambda: desk.new_teacher_link(db, on_pending=handed.append)) == PENDING
    assert handed[0].result(timeout=15) == desk.token != old
    assert TeacherDesk(new.code, old).act(db, classes.lock)  # the old link is refused
    db.dispose()
