"""A student's class page as a state machine (lab/views/live_class/student_phase.py), with plain pytest: each state
reached from what the class database holds after a real teacher's or student's action, and every transition a
class takes, from each state. The drawing of each state: tests/test_pages_classroom.py (AppTest) and the browser."""

from __future__ import annotations

from dataclasses import replace

from lab.classroom import admission, answers, classes, roster
from lab.classroom.actions import DATABASE_DOWN, Outcome, StudentSeat
from lab.views.live_class.student_phase import Phase, activity_phase, phase_of, shown_phase


def phase(engine, code, token, last=None):
    return phase_of(StudentSeat(code, token).state(engine), last)[0]


def test_a_prediction_from_joining_to_the_end_of_the_class(data):
    engine = data
    new = classes.create_class(engine, "Period 3")
    ann = admission.join_class(engine, new.code, "Ann", client="a").student_token
    assert phase(engine, new.code, ann) is Phase.NO_ACTIVITY
    activity = classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    assert phase(engine, new.code, ann) is Phase.PREDICTING
    answers.submit_prediction(engine, new.code, ann, activity, ["0.75", "0.25"])
    assert phase(engine, new.code, ann) is Phase.SAVED
    classes.lock(engine, new.code, new.teacher_token)
    assert phase(engine, new.code, ann) is Phase.SAVED  # locked: the same state, its controls disabled
    classes.unlock(engine, new.code, new.teacher_token)
    classes.vote_again(engine, new.code, new.teacher_token)
    assert phase(engine, new.code, ann) is Phase.PREDICTING  # round 2: nothing saved in it yet
    answers.submit_prediction(engine, new.code, ann, activity, ["0.7", "0.3"], round_number=2)
    assert phase(engine, new.code, ann) is Phase.SAVED
    classes.reveal(engine, new.code, new.teacher_token)
    assert phase(engine, new.code, ann) is Phase.REVEALED
    classes.next_activity(engine, new.code, new.teacher_token)
    assert phase(engine, new.code, ann) is Phase.NO_ACTIVITY
    classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    classes.end_class(engine, new.code, new.teacher_token)
    state = StudentSeat(new.code, ann).state(engine).value
    assert activity_phase(state) is Phase.ENDED
    assert shown_phase(state) is Phase.PREDICTING  # an ended class shows its activity as it was left


def test_a_revealed_prediction_with_nothing_saved_is_revealed_too(data):
    engine = data
    new = classes.create_class(engine)
    bo = admission.join_class(engine, new.code, "Bo", client="b").student_token
    classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    classes.reveal(engine, new.code, new.teacher_token)
    assert phase(engine, new.code, bo) is Phase.REVEALED


def test_an_assignment_from_solving_to_its_solutions(data):
    engine = data
    new = classes.create_class(engine)
    cy = admission.join_class(engine, new.code, "Cy", client="c").student_token
    params = {"seed": 12, "level": "zeros", "count": 3}
    activity = classes.open_activity(engine, new.code, new.teacher_token, "assignment", params)
    assert phase(engine, new.code, cy) is Phase.SOLVING
    answers.submit_answer(engine, new.code, cy, activity, 1, "1/2")
    assert phase(engine, new.code, cy) is Phase.SOLVING  # an attempt saved: still solving
    classes.reveal(engine, new.code, new.teacher_token)
    assert phase(engine, new.code, cy) is Phase.SOLUTIONS
    classes.end_class(engine, new.code, new.teacher_token)
    assert phase(engine, new.code, cy) is Phase.ENDED
    assert shown_phase(StudentSeat(new.code, cy).state(engine).value) is Phase.SOLUTIONS


def test_waiting_to_be_let_in_then_in_then_removed_then_back(data):
    engine = data
    new = classes.create_class(engine)
    admission.set_expected_size(engine, new.code, new.teacher_token, 1)
    admission.join_class(engine, new.code, "Ann", client="a")
    dee = admission.join_class(engine, new.code, "Dee", client="d")
    assert dee.waiting and phase(engine, new.code, dee.student_token) is Phase.WAITING_ROOM
    dee_id = next(s.id for s in classes_students(engine, new.code) if s.name == "Dee")
    roster.admit_waiting(engine, new.code, new.teacher_token, [dee_id])
    assert phase(engine, new.code, dee.student_token) is Phase.NO_ACTIVITY
    roster.remove_student(engine, new.code, new.teacher_token, dee_id)
    assert phase(engine, new.code, dee.student_token) is Phase.REMOVED
    roster.allow_back(engine, new.code, new.teacher_token, dee_id)
    assert phase(engine, new.code, dee.student_token) is Phase.NO_ACTIVITY  # let back: their link opens the class


def classes_students(engine, code):
    from sqlalchemy import text

    with engine.connect() as conn:
        return conn.execute(
            text("SELECT s.id, s.name FROM students s JOIN classes c ON c.id = s.class_id WHERE c.code = :c"),
            {"c": code},
        ).all()


def test_a_link_refused_and_the_database_not_answering(data):
    engine = data
    new = classes.create_class(engine)
    ann = admission.join_class(engine, new.code, "Ann", client="a").student_token
    assert phase(engine, new.code, "not-a-token") is Phase.REFUSED
    other = classes.create_class(engine)
    assert phase(engine, other.code, ann) is Phase.REFUSED  # another class's link
    last = StudentSeat(new.code, ann).state(engine).value
    down = Outcome(refusal=DATABASE_DOWN, down=True)
    assert phase_of(down, None) == (Phase.NOT_ANSWERING, None)  # nothing read before on this page
    assert phase_of(down, last) == (Phase.OFFLINE, last)  # the page as last read
    assert phase_of(StudentSeat(new.code, ann).state(engine), last)[0] is Phase.NO_ACTIVITY  # back: read again


def test_which_phases_draw_an_activity():
    notices = {Phase.WAITING_ROOM, Phase.REMOVED, Phase.REFUSED, Phase.NOT_ANSWERING}
    assert {p for p in Phase if not p.has_activity} == notices


def test_every_state_has_one_drawing():
    from lab.views.live_class import student

    notices = {p for p in Phase if not p.has_activity}
    assert set(student.NOTICES) == notices
    activities = set(Phase) - notices - {Phase.OFFLINE, Phase.ENDED}  # those two draw the activity as last read/left
    assert set(student.ACTIVITIES) == activities == set(student.LIVE)


def test_an_ended_class_with_no_activity_shows_none():
    from lab.classroom.answers import StudentState

    state = StudentState("ABCDEF", "", "Ann", 3, None, None, None, open=False)
    assert activity_phase(state) is Phase.ENDED and shown_phase(state) is Phase.NO_ACTIVITY
    assert activity_phase(replace(state, open=True)) is Phase.NO_ACTIVITY
