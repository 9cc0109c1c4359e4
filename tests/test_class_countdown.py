"""A vote's countdown (lab.classroom.classes: open_activity's timer_s, add_time, stop_countdown): it locks the vote
when it ends, on SQLite and PostgreSQL (the ``engine`` fixture), with the clock moved by hand (db.now).

The worked example's exact answer is r(B) = 3/4, r(C) = 1/4 (tests/test_classroom.py derives it)."""

from __future__ import annotations

import csv
import io

import pytest

from lab.classroom import admission, answers, classes, db, export, versions
from lab.classroom.activities import PREDICT
from lab.classroom.refusals import ClassroomError

START = 2_000_000.0


@pytest.fixture
def clock(monkeypatch):
    now = [START]
    monkeypatch.setattr(db, "now", lambda: now[0])
    return now


def timed_class(engine, timer_s=30):
    new = classes.create_class(engine, "Period 3")
    classes.open_activity(engine, new.code, new.teacher_token, PREDICT, {"source": "worked-example"}, timer_s)
    ann = admission.join_class(engine, new.code, "Ann").student_token
    return new, ann


def activity(engine, code, token):
    return answers.student_state(engine, code, token).activity


def submit(engine, code, token, values=("0.75", "0.25")):
    a = activity(engine, code, token)
    return answers.submit_prediction(engine, code, token, a.id, values, round_number=a.round)


def test_the_countdown_locks_the_vote_when_it_ends(engine, clock):
    new, ann = timed_class(engine, 60)
    a = activity(engine, new.code, ann)
    assert (a.timer_s, a.closes_at, a.seconds_left(), a.locked, a.timed_out) == (60, START + 60, 60.0, False, False)
    submit(engine, new.code, ann, ("0.5", "0.5"))
    clock[0] = START + 59.5
    submit(engine, new.code, ann)  # half a second before the end: saved
    clock[0] = START + 60  # the end itself: closed
    a = activity(engine, new.code, ann)
    assert (a.locked, a.timed_out, a.seconds_left()) == (True, True, 0.0)
    with pytest.raises(ClassroomError, match="The time for this vote is up: this answer was not saved"):
        submit(engine, new.code, ann, ("0.1", "0.9"))
    rows = list(csv.DictReader(io.StringIO(export.class_results_csv(engine, new.code, new.teacher_token))))
    # the last answer in time, not the late one
    assert [(r["value 1 answer"], r["value 2 answer"]) for r in rows] == [("3/4", "1/4")]


def test_a_write_is_refused_in_the_statement_when_the_time_ran_out_meanwhile(engine, monkeypatch):
    """The activity read as open, but the write's own time is past the end: the statement itself refuses it."""
    monkeypatch.setattr(db, "now", lambda: START)
    new, ann = timed_class(engine, 30)
    a = activity(engine, new.code, ann)
    times = iter([START + 31])  # the write's time (taken first), past the end; every later reading: in time
    monkeypatch.setattr(db, "now", lambda: next(times, START + 10))
    with pytest.raises(ClassroomError, match="closed this activity a moment ago .*time ran out"):
        answers.submit_prediction(engine, new.code, ann, a.id, ("0.75", "0.25"), round_number=1)
    with engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT COUNT(*) FROM submissions").scalar_one() == 0


def test_add_time_extends_a_running_countdown_and_reopens_an_ended_one(engine, clock):
    new, ann = timed_class(engine, 30)
    clock[0] = START + 10
    assert classes.add_time(engine, new.code, new.teacher_token) == START + 60  # 20 s left, plus 30
    assert activity(engine, new.code, ann).seconds_left() == 50.0
    clock[0] = START + 61
    assert activity(engine, new.code, ann).timed_out
    assert classes.add_time(engine, new.code, new.teacher_token) == START + 91  # ended: 30 s from now
    a = activity(engine, new.code, ann)
    assert (a.locked, a.timed_out, a.seconds_left()) == (False, False, 30.0)
    submit(engine, new.code, ann)
    for _ in range(17):  # up to 10 minutes from now, never more
        classes.add_time(engine, new.code, new.teacher_token)
    assert activity(engine, new.code, ann).seconds_left() == 540.0
    with pytest.raises(ClassroomError, match="at most 10 minutes"):
        classes.add_time(engine, new.code, new.teacher_token, 90)


def test_a_countdown_can_start_on_an_open_vote_and_stop(engine, clock):
    new, ann = timed_class(engine, None)
    assert activity(engine, new.code, ann).seconds_left() is None
    classes.add_time(engine, new.code, new.teacher_token)  # none running: one of 30 s
    assert activity(engine, new.code, ann).seconds_left() == 30.0
    classes.stop_countdown(engine, new.code, new.teacher_token)
    clock[0] = START + 3600
    a = activity(engine, new.code, ann)
    assert (a.seconds_left(), a.locked) == (None, False)
    submit(engine, new.code, ann)


def test_lock_stops_the_countdown_unlock_opens_without_one(engine, clock):
    new, ann = timed_class(engine, 30)
    classes.lock(engine, new.code, new.teacher_token)
    a = activity(engine, new.code, ann)
    assert (a.locked, a.timed_out, a.seconds_left()) == (True, False, None)
    with pytest.raises(ClassroomError, match="locked"):
        classes.add_time(engine, new.code, new.teacher_token)
    classes.unlock(engine, new.code, new.teacher_token)
    clock[0] = START + 300
    assert not activity(engine, new.code, ann).locked
    # a vote the countdown locked opens again with Unlock too, without a countdown
    classes.add_time(engine, new.code, new.teacher_token)
    clock[0] = START + 331
    assert activity(engine, new.code, ann).timed_out
    classes.unlock(engine, new.code, new.teacher_token)
    a = activity(engine, new.code, ann)
    assert (a.locked, a.seconds_left()) == (False, None)


def test_each_round_has_its_countdown_and_the_reveal_ends_it(engine, clock):
    new, ann = timed_class(engine, 120)
    submit(engine, new.code, ann)
    clock[0] = START + 200
    assert classes.vote_again(engine, new.code, new.teacher_token) == 2
    a = activity(engine, new.code, ann)
    assert (a.round, a.closes_at, a.locked) == (2, START + 320, False)
    classes.reveal(engine, new.code, new.teacher_token)
    a = activity(engine, new.code, ann)
    assert a.seconds_left() is None  # the reveal closed the round: no countdown is shown
    with pytest.raises(ClassroomError, match="revealed"):
        classes.add_time(engine, new.code, new.teacher_token)


@pytest.mark.parametrize("bad", [45, -30, "30", True, 30.0, 10**9])
def test_only_the_offered_lengths_are_taken(engine, bad):
    new = classes.create_class(engine)
    with pytest.raises(ClassroomError, match="Countdown: .* is not one of the lengths offered"):
        classes.open_activity(engine, new.code, new.teacher_token, PREDICT, {"source": "worked-example"}, bad)
    with engine.connect() as conn:
        assert conn.exec_driver_sql("SELECT COUNT(*) FROM activities").scalar_one() == 0


@pytest.mark.parametrize("bad", [0, -5, "30", True, 121, 2.5])
def test_add_time_takes_whole_seconds_up_to_two_minutes(engine, bad):
    new, _ann = timed_class(engine, 30)
    with pytest.raises(ClassroomError, match="Add time: .* is not a number of seconds from 1 to 120"):
        classes.add_time(engine, new.code, new.teacher_token, bad)


def test_the_route_tells_a_page_of_the_countdown(engine, clock):
    """The route's layout moves with Add time and with the end of the countdown, and it is the student's own."""
    new, ann = timed_class(engine, 30)

    def layout():
        a = activity(engine, new.code, ann)
        mine = versions.page_layout(a.id, a.locked, a.kind, a.revealed, a.closes_at)
        route = versions.stored_class_version(engine, new.code).layout
        assert route == mine
        return route

    seen = [layout()]
    classes.add_time(engine, new.code, new.teacher_token)
    seen.append(layout())
    clock[0] = START + 61
    seen.append(layout())
    assert len(set(seen)) == 3
