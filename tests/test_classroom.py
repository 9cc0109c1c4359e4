"""Live class storage and logic on SQLite and PostgreSQL (the ``engine`` fixture runs each test on both).

Expected values are derived by hand from the worked example: the class predicts r(B) and r(C) of the
``bernoulli-residual`` scenario, which (p = 1/10, 3/5, 3/10; q = 1/2, 3/10, 1/5) has
min(p, q) = 1/10, 3/10, 1/5, alpha = 3/5, Z = 2/5, r = 0, 3/4, 1/4.
"""

from __future__ import annotations

import csv
import hashlib
import io
import os
import re
import subprocess
import sys
import textwrap
from fractions import Fraction
from pathlib import Path

import pytest
from sqlalchemy import event, text

from lab.classroom import (
    activities,
    admission,
    answers,
    classes,
    dashboards,
    db,
    export,
    roster,
    teacher_link,
    versions,
)
from lab.classroom.activities import PREDICT, predict_spec
from lab.classroom.db import SCHEMA_VERSION, make_engine
from lab.classroom.naming import CODE_ALPHABET
from lab.classroom.refusals import ClassroomError, RateLimited

ROOT = Path(__file__).resolve().parents[1]
F = Fraction


def start(engine, kind=PREDICT, **params):
    new = classes.create_class(engine, "Period 3")
    classes.open_activity(engine, new.code, new.teacher_token, kind, params or {"source": "worked-example"})
    return new


def current_id(engine, code, token):
    return answers.student_state(engine, code, token).activity.id


# --- codes, secrets, schema --------------------------------------------------------------------------


def test_codes_and_secrets(engine):
    assert not set("0O1IlL") & set(CODE_ALPHABET)
    new = classes.create_class(engine, "Room 12")
    assert len(new.code) == 6 and set(new.code) <= set(CODE_ALPHABET)
    assert len(new.teacher_token) >= 22  # token_urlsafe: 4 characters per 3 bytes; 16 bytes = 128 bits
    joined = admission.join_class(engine, new.code.lower(), "Ann")
    with engine.connect() as conn:
        row = conn.execute(text("SELECT teacher_hash FROM classes")).one()
        student = conn.execute(text("SELECT token_hash FROM students")).one()
    assert row.teacher_hash == hashlib.sha256(new.teacher_token.encode()).hexdigest()
    assert student.token_hash == hashlib.sha256(joined.student_token.encode()).hexdigest()
    # the plain secrets are stored nowhere
    with engine.connect() as conn:
        dump = " ".join(
            str(v) for t in ("classes", "students") for r in conn.execute(text(f"SELECT * FROM {t}")) for v in r
        )
    assert new.teacher_token not in dump and joined.student_token not in dump


def test_schema_is_versioned(engine):
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version FROM schema_version")).scalars().all() == [SCHEMA_VERSION]
    with engine.begin() as conn:
        conn.execute(text("UPDATE schema_version SET version = :v"), {"v": SCHEMA_VERSION + 1})
    with pytest.raises(RuntimeError, match="newer than this app"):
        make_engine(str(engine.url.render_as_string(hide_password=False)))


def test_sqlite_runs_in_wal_mode_with_a_busy_timeout(tmp_path):
    engine = make_engine(f"sqlite:///{tmp_path / 'c.db'}")
    with engine.connect() as conn:
        assert conn.exec_driver_sql("PRAGMA journal_mode").scalar() == "wal"
        assert conn.exec_driver_sql("PRAGMA busy_timeout").scalar() == 10_000
    engine.dispose()


# --- joining -----------------------------------------------------------------------------------------


def test_join_checks_name_and_code(engine):
    new = classes.create_class(engine)
    assert admission.join_class(engine, f" {new.code[:3].lower()}-{new.code[3:]} ", "x" * 40).name == "x" * 40
    with pytest.raises(ClassroomError, match="at most 40"):
        admission.join_class(engine, new.code, "x" * 41)
    with pytest.raises(ClassroomError, match="type a name"):
        admission.join_class(engine, new.code, "   ")
    with pytest.raises(ClassroomError, match="'O' never appears"):
        admission.join_class(engine, "ABCDEO", "Ann", client="a")
    other = "".join(CODE_ALPHABET[(CODE_ALPHABET.index(c) + 1) % len(CODE_ALPHABET)] for c in new.code)
    with pytest.raises(ClassroomError, match=f"No open class has the code {other}"):
        admission.join_class(engine, other, "Ann", client="b")


def test_at_most_500_students(engine):
    new = classes.create_class(engine)
    with engine.begin() as conn:  # 499 seats taken (joining them one by one is the same UPDATE 499 times)
        conn.execute(text("UPDATE classes SET student_count = 499"))
    admission.join_class(engine, new.code, "Number 500")
    key = teacher_link.check_teacher(engine, new.code, new.teacher_token).join_key
    with pytest.raises(ClassroomError, match="full \\(500 students\\)"):  # said through the join link
        admission.join_class(engine, new.code, "Number 501", link_key=key)
    with pytest.raises(ClassroomError, match="No open class has the code"):  # a typed code: the one refusal
        admission.join_class(engine, new.code, "Number 501")
    with engine.connect() as conn:
        assert conn.execute(text("SELECT COUNT(*) FROM students")).scalar_one() == 1  # nothing half-written


def test_wrong_codes_are_slowed_per_client(engine, monkeypatch):
    clock = [1_000_000.0]
    monkeypatch.setattr(db, "now", lambda: clock[0])
    new = classes.create_class(engine)
    for _ in range(5):  # five free wrong tries
        with pytest.raises(ClassroomError, match="No open class") as info:
            admission.join_class(engine, "ZZZZZZ", "Eve", client="10.0.0.9")
        assert not isinstance(info.value, RateLimited)
    with pytest.raises(RateLimited, match="wait 2 s") as info:
        admission.join_class(engine, new.code, "Eve", client="10.0.0.9")  # even the right code waits
    assert info.value.wait == 2
    admission.join_class(engine, new.code, "Bob", client="10.0.0.10")  # another client is not slowed
    clock[0] += 2.5
    with pytest.raises(ClassroomError, match="No open class"):  # after the wait: one more try, then 4 s
        admission.join_class(engine, "ZZZZZZ", "Eve", client="10.0.0.9")
    with pytest.raises(RateLimited, match="wait 4 s"):
        admission.join_class(engine, new.code, "Eve", client="10.0.0.9")
    clock[0] += 4.5
    assert admission.join_class(engine, new.code, "Eve", client="10.0.0.9").name == "Eve"


# --- predictions, dashboard, reveal ---------------------------------------------------------------------


def test_predictions_dashboard_patterns_and_reveal(engine):
    new = start(engine)
    guesses = {  # B, C: hand-made, with the wrong patterns derived from the scenario behind the example
        "Ann": ("0.75", "0.25"),  # exact
        "Bob": ("0.7", "0.3"),  # 0.05 away on both bars: counts as within 0.05
        "Cat": ("0.65", "0.35"),  # r proportional to p over B, C: (3/5, 3/10) / (9/10) = (2/3, 1/3)
        "Dan": ("0.3", "0.1"),  # p - q not normalised: 3/10, 1/10
        "Eli": ("0.3", "0.1"),
    }
    tokens = {name: admission.join_class(engine, new.code, name).student_token for name in [*guesses, "Fay"]}
    board = dashboards.dashboard(engine, new.code, new.teacher_token)
    assert (board.joined, board.submitted) == (6, 0)
    activity = board.activity.id
    for name, values in guesses.items():
        answers.submit_prediction(engine, new.code, tokens[name], activity, values)
    board = dashboards.dashboard(engine, new.code, new.teacher_token)
    assert (board.joined, board.submitted) == (6, 5)
    summary = board.predict
    assert summary.fields == ("r(B)", "r(C)")
    assert summary.exact == (F(3, 4), F(1, 4))
    assert summary.close_share == (F(2, 5), F(2, 5))
    assert summary.all_close_share == F(2, 5)
    assert summary.means == pytest.approx((2.7 / 5, 1.1 / 5))
    assert sorted(summary.values[0]) == [0.3, 0.3, 0.65, 0.7, 0.75]
    assert (summary.pattern, summary.pattern_count) == ("p − q not normalised by Z", 2)
    # nothing is revealed to students before the reveal
    assert answers.student_state(engine, new.code, tokens["Ann"]).exact is None
    classes.reveal(engine, new.code, new.teacher_token)
    ann = answers.student_state(engine, new.code, tokens["Ann"])
    assert ann.exact == (F(3, 4), F(1, 4))
    assert ann.prediction == (F(3, 4), F(1, 4))
    assert answers.student_state(engine, new.code, tokens["Fay"]).prediction is None


def test_scenario_activity_asks_for_z_and_spots_z_confused_with_alpha(engine):
    new = start(engine, source="bernoulli-residual")
    spec = predict_spec("bernoulli-residual")
    assert spec.fields == ("r(A)", "r(B)", "r(C)", "Z")
    assert spec.exact == (F(0), F(3, 4), F(1, 4), F(2, 5))
    a = admission.join_class(engine, new.code, "A").student_token
    b = admission.join_class(engine, new.code, "B").student_token
    activity = current_id(engine, new.code, a)
    answers.submit_prediction(engine, new.code, a, activity, ["0", "0.75", "0.25", "0.6"])  # Z = alpha = 3/5
    answers.submit_prediction(engine, new.code, b, activity, ["0.1", "0.6", "0.3", "0.4"])  # r = p, Z right
    summary = dashboards.dashboard(engine, new.code, new.teacher_token).predict
    assert summary.close_share == (F(1, 2), F(1, 2), F(1, 1), F(1, 2))
    assert summary.all_close_share == 0
    assert summary.pattern in ("Z confused with α", "r proportional to p") and summary.pattern_count == 1


def test_revise_until_locked_and_next_activity(engine):
    new = start(engine)
    token = admission.join_class(engine, new.code, "Ann").student_token
    activity = current_id(engine, new.code, token)
    assert answers.submit_prediction(engine, new.code, token, activity, ["0.5", "0.5"]).revisions == 1
    assert answers.submit_prediction(engine, new.code, token, activity, ["0.75", "0.25"]).revisions == 2
    assert dashboards.dashboard(engine, new.code, new.teacher_token).predict.values == ((0.75,), (0.25,))
    classes.lock(engine, new.code, new.teacher_token)
    with pytest.raises(ClassroomError, match="locked"):
        answers.submit_prediction(engine, new.code, token, activity, ["0.1", "0.9"])
    classes.unlock(engine, new.code, new.teacher_token)
    answers.submit_prediction(engine, new.code, token, activity, ["0.7", "0.3"])
    classes.next_activity(engine, new.code, new.teacher_token)
    assert answers.student_state(engine, new.code, token).activity is None
    with pytest.raises(ClassroomError, match="moved on"):
        answers.submit_prediction(engine, new.code, token, activity, ["0.1", "0.9"])
    classes.open_activity(engine, new.code, new.teacher_token, PREDICT, {"source": "bernoulli-residual"})
    state = answers.student_state(engine, new.code, token)
    assert state.activity.position == 2 and state.prediction is None
    with engine.connect() as conn:
        assert conn.execute(text("SELECT answer FROM submissions")).scalar_one() == '["7/10", "3/10"]'


def test_the_reveal_closes_the_round_and_a_late_answer_is_refused_by_name(engine):
    """A Submit after the reveal is refused (the phone says why) and stored nowhere: the CSV holds the answer from
    before the reveal only. Unlock does not reopen a revealed activity. An assignment's reveal (its worked
    solutions) closes it the same way."""
    new = start(engine)
    token = admission.join_class(engine, new.code, "Ann").student_token
    late = admission.join_class(engine, new.code, "Bob").student_token
    activity = current_id(engine, new.code, token)
    answers.submit_prediction(engine, new.code, token, activity, ["0.5", "0.5"])
    classes.reveal(engine, new.code, new.teacher_token)
    for who, values in ((token, ["0.75", "0.25"]), (late, ["0.75", "0.25"])):
        with pytest.raises(ClassroomError, match="revealed the answer: this activity is closed, and this answer "
                           "was not saved"):
            answers.submit_prediction(engine, new.code, who, activity, values)
    classes.unlock(engine, new.code, new.teacher_token)
    with pytest.raises(ClassroomError, match="revealed the answer"):
        answers.submit_prediction(engine, new.code, late, activity, ["0.75", "0.25"])
    assert answers.student_state(engine, new.code, token).prediction == (F(1, 2), F(1, 2))
    assert answers.student_state(engine, new.code, late).prediction is None
    rows = list(csv.DictReader(io.StringIO(export.class_results_csv(engine, new.code, new.teacher_token))))
    assert [(r["student"], r["answer"]) for r in rows] == [("Ann", "r(B) = 1/2; r(C) = 1/2")]
    # an assignment: its reveal shows the worked solutions, and closes it
    classes.open_activity(engine, new.code, new.teacher_token, "assignment", {"seed": 12, "level": "zeros",
                                                                             "count": 1})
    assignment = current_id(engine, new.code, token)
    classes.reveal(engine, new.code, new.teacher_token)
    with pytest.raises(ClassroomError, match="revealed the answer"):
        answers.submit_answer(engine, new.code, token, assignment, 1, "1/2")


def test_a_reveal_between_the_read_and_the_write_still_refuses_the_answer(engine, monkeypatch):
    """The write itself checks that the activity is still open (on PostgreSQL another session can reveal after this
    transaction read the activity): simulated by a read that does not see the reveal."""
    new = start(engine)
    token = admission.join_class(engine, new.code, "Ann").student_token
    activity = current_id(engine, new.code, token)
    classes.reveal(engine, new.code, new.teacher_token)
    stale = answers._open_activity_for

    def read_before_the_reveal(view, activity_id, kind, round_number=None):
        from dataclasses import replace

        return stale(replace(view, revealed=False), activity_id, kind, round_number)

    monkeypatch.setattr(answers, "_open_activity_for", read_before_the_reveal)
    with pytest.raises(ClassroomError, match="closed this activity a moment ago"):
        answers.submit_prediction(engine, new.code, token, activity, ["0.75", "0.25"])
    assert answers.student_state(engine, new.code, token).prediction is None


def test_prediction_values_are_checked(engine):
    new = start(engine)
    token = admission.join_class(engine, new.code, "Ann").student_token
    activity = current_id(engine, new.code, token)
    with pytest.raises(ClassroomError, match="r\\(C\\): 1.5 is outside 0 to 1"):
        answers.submit_prediction(engine, new.code, token, activity, ["0.5", "1.5"])
    with pytest.raises(ClassroomError, match="r\\(B\\): 'x' is not a number"):
        answers.submit_prediction(engine, new.code, token, activity, ["x", "0.5"])
    with pytest.raises(ClassroomError, match="1 values for 2 fields"):
        answers.submit_prediction(engine, new.code, token, activity, ["0.5"])
    assert dashboards.dashboard(engine, new.code, new.teacher_token).submitted == 0


def test_thirty_submissions_a_minute(engine, monkeypatch):
    clock = [2_000_000.0]
    monkeypatch.setattr(db, "now", lambda: clock[0])
    new = start(engine)
    token = admission.join_class(engine, new.code, "Ann").student_token
    activity = current_id(engine, new.code, token)
    for i in range(30):
        clock[0] += 1
        answers.submit_prediction(engine, new.code, token, activity, [str(i / 100), "0"])
    with pytest.raises(RateLimited, match="More than 30 submissions in a minute: wait 31 s"):
        answers.submit_prediction(engine, new.code, token, activity, ["0.99", "0"])
    assert answers.student_state(engine, new.code, token).prediction == (F(29, 100), F(0))  # nothing half-written
    clock[0] += 31
    assert answers.submit_prediction(engine, new.code, token, activity, ["0.5", "0.5"]).revisions == 31


# --- authorisation -----------------------------------------------------------------------------------


def test_teacher_actions_need_the_teacher_token(engine):
    mine, theirs = start(engine), start(engine)
    actions = [
        lambda c, t: classes.reveal(engine, c, t),
        lambda c, t: classes.lock(engine, c, t),
        lambda c, t: classes.next_activity(engine, c, t),
        lambda c, t: classes.end_class(engine, c, t),
        lambda c, t: dashboards.dashboard(engine, c, t),
        lambda c, t: export.class_results_csv(engine, c, t),
        lambda c, t: classes.open_activity(engine, c, t, PREDICT, {"source": "worked-example"}),
        lambda c, t: roster.remove_student(engine, c, t, 1),
        lambda c, t: roster.remove_not_submitted(engine, c, t),
        lambda c, t: roster.allow_back(engine, c, t, 1),
        lambda c, t: teacher_link.check_teacher(engine, c, t),
    ]
    unknown = next(c for c in ("QQQQQQ", "RRRRRR") if c not in (mine.code, theirs.code))
    messages = set()
    for action in actions:
        for code, token in [
            (mine.code, ""),
            (mine.code, "forged-token-forged-token"),
            (mine.code, theirs.teacher_token),
            (unknown, mine.teacher_token),  # a code no class has: the same words
            (unknown, "forged-token-forged-token"),
        ]:
            with pytest.raises(ClassroomError, match="This teacher link does not open a class") as info:
                action(code, token)
            messages.add(str(info.value))
    assert len(messages) == 1  # nothing tells an existing code from a made-up one
    board = dashboards.dashboard(engine, mine.code, mine.teacher_token)
    assert board.klass.ended_at is None and board.activity.position == 1 and not board.activity.revealed


def test_students_write_and_read_only_their_own(engine):
    mine, theirs = start(engine), start(engine)
    ann = admission.join_class(engine, mine.code, "Ann").student_token
    bob = admission.join_class(engine, mine.code, "Bob").student_token
    zoe = admission.join_class(engine, theirs.code, "Zoe").student_token
    activity = current_id(engine, mine.code, ann)
    answers.submit_prediction(engine, mine.code, ann, activity, ["0.75", "0.25"])
    answers.submit_prediction(engine, mine.code, bob, activity, ["0.1", "0.9"])
    assert answers.student_state(engine, mine.code, ann).prediction == (F(3, 4), F(1, 4))
    assert answers.student_state(engine, mine.code, bob).prediction == (F(1, 10), F(9, 10))
    with pytest.raises(ClassroomError, match="belongs to another class"):
        answers.student_state(engine, mine.code, zoe)
    with pytest.raises(ClassroomError, match="belongs to another class"):
        answers.submit_prediction(engine, mine.code, zoe, activity, ["0.5", "0.5"])
    forged = "A" * 22
    with pytest.raises(ClassroomError, match="student link is not valid"):
        answers.submit_prediction(engine, mine.code, forged, activity, ["0.5", "0.5"])
    with pytest.raises(ClassroomError, match="student link is not valid"):
        answers.student_state(engine, mine.code, forged)
    # a student's token is not a teacher token
    with pytest.raises(ClassroomError, match="does not open a class"):
        classes.reveal(engine, mine.code, ann)
    # Ann's answer is untouched by everyone else's attempts
    assert answers.student_state(engine, mine.code, ann).prediction == (F(3, 4), F(1, 4))


def test_remove_student_and_end_class(engine):
    new = start(engine)
    ann = admission.join_class(engine, new.code, "Ann").student_token
    admission.join_class(engine, new.code, "Bob")
    board = dashboards.dashboard(engine, new.code, new.teacher_token)
    ann_id = next(s.id for s in board.students if s.name == "Ann")
    roster.remove_student(engine, new.code, new.teacher_token, ann_id)
    assert [s.name for s in dashboards.dashboard(engine, new.code, new.teacher_token).students] == ["Bob"]
    with pytest.raises(ClassroomError, match="removed you"):
        answers.student_state(engine, new.code, ann)
    with pytest.raises(ClassroomError, match="not in this class"):
        roster.remove_student(engine, new.code, new.teacher_token, ann_id)
    version = versions.stored_class_version(engine, new.code)
    classes.end_class(engine, new.code, new.teacher_token)
    assert versions.stored_class_version(engine, new.code)[:2] == (version[0] + 1, False)
    # an ended class's code is refused in the words of a code no class has (nothing tells them apart)
    with pytest.raises(ClassroomError, match=f"No open class has the code {new.code}: check the code"):
        admission.join_class(engine, new.code, "Cat")
    with pytest.raises(ClassroomError, match="has ended"):
        classes.reveal(engine, new.code, new.teacher_token)
    assert dashboards.dashboard(engine, new.code, new.teacher_token).klass.ended_at is not None  # results stay
    assert export.class_results_csv(engine, new.code, new.teacher_token).startswith("class,")


def test_codes_expire_after_a_day_and_classes_are_deleted_after_30_days(engine, monkeypatch):
    clock = [3_000_000.0]
    monkeypatch.setattr(db, "now", lambda: clock[0])
    new = start(engine)
    token = admission.join_class(engine, new.code, "Ann").student_token
    activity = answers.student_state(engine, new.code, token).activity.id
    clock[0] += 24 * 3600 + 1
    with pytest.raises(ClassroomError, match="No open class has the code"):
        admission.join_class(engine, new.code, "Bob")
    assert not answers.student_state(engine, new.code, token).open  # the student's link is read-only now
    with pytest.raises(ClassroomError, match="has ended: nothing can change"):
        answers.submit_prediction(engine, new.code, token, activity, ["0.5", "0.5"])
    clock[0] += 30 * 24 * 3600
    classes.create_class(engine)  # creating a class purges old ones
    with engine.connect() as conn:
        assert conn.execute(text("SELECT COUNT(*) FROM students")).scalar_one() == 0
        assert conn.execute(text("SELECT COUNT(*) FROM activities")).scalar_one() == 0
        assert conn.execute(text("SELECT COUNT(*) FROM classes")).scalar_one() == 1


# --- assignments ------------------------------------------------------------------------------------


def test_assignment_answers_are_checked_like_the_exercises_page(engine):
    new = start(engine, kind="assignment", seed=12, level="zeros", count=3)
    ann = admission.join_class(engine, new.code, "Ann").student_token
    bob = admission.join_class(engine, new.code, "Bob").student_token
    state = answers.student_state(engine, new.code, ann)
    problems = state.activity.spec.problems
    first = problems[0]
    right = first.answer_text
    check, attempt = answers.submit_answer(engine, new.code, ann, state.activity.id, 1, "what?")
    assert not check.counted and attempt.tries == 0
    check, attempt = answers.submit_answer(engine, new.code, ann, state.activity.id, 1, "7/3")  # never a probability
    assert check.counted and not check.correct and attempt.tries == 1
    check, attempt = answers.submit_answer(engine, new.code, ann, state.activity.id, 1, right)
    assert check.correct and attempt.tries == 2
    # after a correct answer: no change
    check, attempt = answers.submit_answer(engine, new.code, ann, state.activity.id, 1, "7/3")
    assert attempt.correct and attempt.tries == 2
    answers.submit_answer(engine, new.code, bob, state.activity.id, 2, "7/3")
    board = dashboards.dashboard(engine, new.code, new.teacher_token)
    assert board.submitted == 2
    assert board.assignment.success == (F(1, 2), F(0), F(0))
    assert board.assignment.rows[0] == {"student": "Ann", "score": 1, "P1 tries": 2, "P2 tries": 0, "P3 tries": 0}
    assert board.assignment.rows[1] == {"student": "Bob", "score": 0, "P1 tries": 0, "P2 tries": 1, "P3 tries": 0}
    assert answers.student_state(engine, new.code, ann).attempts[1].answer == right
    with pytest.raises(ClassroomError, match="Problem 4 is not part"):
        answers.submit_answer(engine, new.code, ann, state.activity.id, 4, "1/2")
    with pytest.raises(ClassroomError, match="not saved"):
        answers.submit_prediction(engine, new.code, ann, state.activity.id, ["0.5", "0.5"])


def test_bad_activity_parameters_are_refused(engine):
    new = classes.create_class(engine)
    with pytest.raises(ClassroomError, match="level: 'hard' is not one of"):
        classes.open_activity(
            engine, new.code, new.teacher_token, "assignment", {"seed": 1, "level": "hard", "count": 3}
        )
    with pytest.raises(ClassroomError, match="Z = 0 here"):
        classes.open_activity(engine, new.code, new.teacher_token, PREDICT, {"source": "equal-distributions"})
    with pytest.raises(ClassroomError, match="unknown scenario"):
        classes.open_activity(engine, new.code, new.teacher_token, PREDICT, {"source": "../secrets"})
    assert dashboards.dashboard(engine, new.code, new.teacher_token).activity is None


# --- export, queries, durability --------------------------------------------------------------------


def test_results_csv_escapes_formulas(engine):
    new = start(engine)
    names = ['=HYPERLINK("http://x")', "+1+1", "-2", "@SUM(A1)", "\tTab", 'Plain, "quoted"']
    tokens = [admission.join_class(engine, new.code, n).student_token for n in names]
    activity = current_id(engine, new.code, tokens[0])
    for token in tokens:
        answers.submit_prediction(engine, new.code, token, activity, ["0.75", "0.2"])
    rows = list(csv.reader(io.StringIO(export.class_results_csv(engine, new.code, new.teacher_token))))
    assert rows[0][: len(export.CSV_HEADER)] == list(export.CSV_HEADER)
    # names are cleaned of tabs when joining (whitespace collapsed), then escaped in the export
    assert [r[4] for r in rows[1:]] == [
        '\'=HYPERLINK("http://x")',
        "'+1+1",
        "'-2",
        "'@SUM(A1)",
        "Tab",
        'Plain, "quoted"',
    ]
    first = rows[1]
    assert first[:4] == ["Period 3", new.code, "1", "Worked example: the residual's two bars"]
    assert first[5] == ""  # no student number given
    assert first[6:12] == [
        "prediction",
        "r(B) = 3/4; r(C) = 1/5",
        "r(B) = 3/4; r(C) = 1/4",
        "1.000",
        "yes",
        "1",
    ]  # both values within 0.05 of the exact answer (|1/5 - 1/4| = 1/20, inclusive): score 2/2, correct
    assert export.csv_cell("\rx") == "'\rx" and export.csv_cell("a=b") == "a=b"


def test_the_csv_gives_each_value_as_a_number_a_score_correct_follows_and_the_reveal_time(engine):
    """pet-words (r = (2/3, 1/3, 0), Z = 3/8, by hand): Ann's (0.65, 0.35, 0, 0.4) has every value within 0.05:
    score 4/4 = 1.000, correct; Bob's (0.5, 0.5, 0, 0.375) has two of four: 0.500, not correct. An unnamed class is
    named by its code; the reveal's time is on every row of the activity."""
    new = classes.create_class(engine)
    classes.open_activity(engine, new.code, new.teacher_token, PREDICT, {"source": "pet-words"})
    ann = admission.join_class(engine, new.code, "Ann").student_token
    bob = admission.join_class(engine, new.code, "Bob").student_token
    activity = current_id(engine, new.code, ann)
    answers.submit_prediction(engine, new.code, ann, activity, ["0.65", "0.35", "0", "0.4"])
    answers.submit_prediction(engine, new.code, bob, activity, ["0.5", "0.5", "0", "0.375"])
    classes.reveal(engine, new.code, new.teacher_token)
    rows = list(csv.DictReader(io.StringIO(export.class_results_csv(engine, new.code, new.teacher_token))))
    assert [(r["student"], r["score"], r["correct"]) for r in rows] == [("Ann", "1.000", "yes"), ("Bob", "0.500", "no")]
    assert {r["class"] for r in rows} == {new.code}
    assert rows[0]["revealed at"] and rows[0]["revealed at"] == rows[1]["revealed at"]
    ann_row = rows[0]
    assert [ann_row[f"value {i}"] for i in range(1, 5)] == ["r(cat)", "r(dog)", "r(fish)", "Z"]
    assert [ann_row[f"value {i} answer"] for i in range(1, 5)] == ["13/20", "7/20", "0", "2/5"]
    assert [ann_row[f"value {i} answer decimal"] for i in range(1, 5)] == ["0.65", "0.35", "0", "0.4"]
    assert [ann_row[f"value {i} exact"] for i in range(1, 5)] == ["2/3", "1/3", "0", "3/8"]
    assert [ann_row[f"value {i} exact decimal"] for i in range(1, 5)] == ["0.666667", "0.333333", "0", "0.375"]


def test_a_student_number_is_optional_checked_and_in_the_results(engine):
    new = start(engine)
    ann = admission.join_class(engine, new.code, "Ann", identifier=" s-2041.7 ").student_token
    admission.join_class(engine, new.code, "Bob")
    for bad, said in (("a b", "' '"), ("=1+1", "'+' '='"), ("x" * 33, "at most 32 characters"), ("é", "'é'")):
        with pytest.raises(ClassroomError, match=f"Student number: .*{re.escape(said)}"):
            admission.join_class(engine, new.code, "Cat", identifier=bad)
    activity = current_id(engine, new.code, ann)
    answers.submit_prediction(engine, new.code, ann, activity, ["0.75", "0.25"])
    rows = list(csv.DictReader(io.StringIO(export.class_results_csv(engine, new.code, new.teacher_token))))
    assert [(r["student"], r["student number"]) for r in rows] == [("Ann", "s-2041.7")]
    with engine.connect() as conn:  # the refused joins stored nothing
        assert conn.execute(text("SELECT COUNT(*) FROM students")).scalar_one() == 2


def test_a_csv_column_is_added_in_one_place(engine, monkeypatch):
    # one entry in the column spec gives the header, the value in both halves of the query and the cell
    name_length = export.CsvColumn(
        "name length", lambda row: row.sql.name_length, (export.Selected("name_length", "LENGTH(s.name)"),)
    )
    monkeypatch.setattr(export, "CSV_COLUMNS", (*export.CSV_COLUMNS, name_length))
    new = start(engine)
    tokens = [admission.join_class(engine, new.code, n).student_token for n in ("Ada", "Grace")]
    activity = current_id(engine, new.code, tokens[0])
    for token in tokens:
        answers.submit_prediction(engine, new.code, token, activity, ["0.5", "0.5"])
    classes.vote_again(engine, new.code, new.teacher_token)  # round 1 moves to the earlier answers
    answers.submit_prediction(engine, new.code, tokens[1], activity, ["0.75", "0.25"])
    rows = list(csv.DictReader(io.StringIO(export.class_results_csv(engine, new.code, new.teacher_token))))
    assert list(rows[0])[: len(export.CSV_HEADER) + 1] == [*export.CSV_HEADER, "name length"]
    assert [(r["student"], r["round"], r["answer"], r["name length"]) for r in rows] == [
        ("Ada", "1", "r(B) = 1/2; r(C) = 1/2", "3"),
        ("Grace", "1", "r(B) = 1/2; r(C) = 1/2", "5"),
        ("Grace", "2", "r(B) = 3/4; r(C) = 1/4", "5"),
    ]
    clash = export.CsvColumn("again", lambda row: row.sql.name, (export.Selected("name", "s.id"),))
    with pytest.raises(ValueError, match="'name' is selected twice"):
        export.export_query((*export.CSV_COLUMNS, clash))


def test_the_dashboard_is_one_query(engine):
    new = start(engine)
    tokens = [admission.join_class(engine, new.code, f"S{i}").student_token for i in range(12)]
    activity = current_id(engine, new.code, tokens[0])
    for t in tokens[:7]:
        answers.submit_prediction(engine, new.code, t, activity, ["0.5", "0.5"])
    statements = []
    event.listen(engine, "before_cursor_execute", lambda *a: statements.append(a[2]))
    board = dashboards.dashboard(engine, new.code, new.teacher_token)
    assert (board.joined, board.submitted) == (12, 7)
    assert len([s for s in statements if s.lstrip().upper().startswith("SELECT")]) == 1


def selects(engine, call):
    """What ``call()`` returns, and how many SELECT statements it sent."""
    statements = []

    def seen(*args):
        statements.append(args[2])

    event.listen(engine, "before_cursor_execute", seen)
    try:
        result = call()
    finally:
        event.remove(engine, "before_cursor_execute", seen)
    return result, len([s for s in statements if s.lstrip().upper().startswith("SELECT")])


def test_a_students_page_is_one_query_in_every_round(engine):
    """Every page of a class reads its student's state at the same moment (an activity opened, a new round): one
    query, whatever it holds. Ann votes 3/4, 1/4 then, in round 2, 7/10, 3/10; Bob votes in round 2 only."""
    new = start(engine)
    ann, bob = (admission.join_class(engine, new.code, n).student_token for n in ("Ann", "Bob"))
    state, count = selects(engine, lambda: answers.student_state(engine, new.code, ann))
    assert count == 1 and state.prediction is None and state.earlier is None and state.attempts == {}
    activity = state.activity.id
    answers.submit_prediction(engine, new.code, ann, activity, ["0.75", "0.25"], round_number=1)
    state, count = selects(engine, lambda: answers.student_state(engine, new.code, ann))
    assert count == 1 and state.prediction == (F(3, 4), F(1, 4)) and state.earlier is None
    classes.vote_again(engine, new.code, new.teacher_token)
    state, count = selects(engine, lambda: answers.student_state(engine, new.code, ann))
    assert count == 1 and state.prediction is None and state.earlier == (F(3, 4), F(1, 4))
    answers.submit_prediction(engine, new.code, ann, activity, ["0.7", "0.3"], round_number=2)
    answers.submit_prediction(engine, new.code, bob, activity, ["0.5", "0.5"], round_number=2)
    state, count = selects(engine, lambda: answers.student_state(engine, new.code, ann))
    assert count == 1 and state.prediction == (F(7, 10), F(3, 10)) and state.earlier == (F(3, 4), F(1, 4))
    bobs = answers.student_state(engine, new.code, bob)
    assert bobs.prediction == (F(1, 2), F(1, 2)) and bobs.earlier is None and bobs.name == "Bob"
    classes.reveal(engine, new.code, new.teacher_token)
    state, count = selects(engine, lambda: answers.student_state(engine, new.code, ann))
    assert count == 1 and state.exact == (F(3, 4), F(1, 4))  # the worked example's r(B), r(C)


def test_a_students_page_in_an_assignment_is_one_query_with_every_problem(engine):
    """Each problem answered is a row of its own: Ann answers problem 3 (wrong), then problem 1 (wrong twice)."""
    new = start(engine, kind="assignment", seed=12, level="zeros", count=3)
    ann = admission.join_class(engine, new.code, "Ann").student_token
    activity = answers.student_state(engine, new.code, ann).activity.id
    answers.submit_answer(engine, new.code, ann, activity, 3, "7/3")
    for _ in range(2):
        answers.submit_answer(engine, new.code, ann, activity, 1, "7/3")
    state, count = selects(engine, lambda: answers.student_state(engine, new.code, ann))
    assert count == 1 and sorted(state.attempts) == [1, 3] and state.prediction is None
    assert (state.attempts[1].tries, state.attempts[3].tries) == (2, 1)
    assert not state.attempts[1].correct and state.attempts[1].answer == "7/3"
    with db.reading(engine) as conn:  # when the page says they were saved: the later of the two
        latest = conn.execute(text("SELECT MAX(updated_at) FROM submissions")).scalar()
    assert state.saved_at == latest


def test_concurrent_submissions_are_all_stored(engine):
    from concurrent.futures import ThreadPoolExecutor

    new = start(engine)
    tokens = [admission.join_class(engine, new.code, f"S{i}").student_token for i in range(40)]
    activity = current_id(engine, new.code, tokens[0])
    with ThreadPoolExecutor(8) as pool:
        list(pool.map(lambda t: answers.submit_prediction(engine, new.code, t, activity, ["0.75", "0.25"]), tokens))
    board = dashboards.dashboard(engine, new.code, new.teacher_token)
    assert board.submitted == 40 and board.predict.all_close_share == 1


KILL_SCRIPT = textwrap.dedent(
    """
    import os, signal, sys
    from lab.classroom import answers, db
    engine = db.make_engine(sys.argv[1])
    token, code, activity = sys.argv[2], sys.argv[3], int(sys.argv[4])
    answers.submit_prediction(engine, code, token, activity, ["0.75", "0.25"])
    print("Saved", flush=True)  # what the page shows after the commit
    os.kill(os.getpid(), signal.SIGKILL)
    """
)


def test_saved_survives_kill_9(engine, db_url):
    new = start(engine)
    token = admission.join_class(engine, new.code, "Ann").student_token
    activity = current_id(engine, new.code, token)
    proc = subprocess.run(
        [sys.executable, "-c", KILL_SCRIPT, db_url, token, new.code, str(activity)],
        cwd=ROOT,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PYTHONPATH": str(ROOT)},
    )
    assert proc.returncode == -9 and proc.stdout.strip() == "Saved"
    reopened = make_engine(db_url)
    assert dashboards.dashboard(reopened, new.code, new.teacher_token).submitted == 1
    assert answers.student_state(reopened, new.code, token).prediction == (F(3, 4), F(1, 4))
    reopened.dispose()


def test_follow_key_is_per_class_and_derived_from_the_display_key_only(engine):
    """A student's page reads its class's version with a key: SHA-256 of "follow:" and the class's display key
    (not the teacher token, which New teacher link replaces), its first 32 hex digits (computed here with
    hashlib); another class has another key."""
    import hashlib

    one, two = classes.create_class(engine), classes.create_class(engine)
    display = versions.stored_class_version(engine, one.code).display_key
    expected = hashlib.sha256(f"follow:{display}".encode()).hexdigest()[:32]
    assert versions.stored_class_version(engine, one.code).follow_key == expected
    student = admission.join_class(engine, one.code, "Ann").student_token
    assert answers.student_state(engine, one.code, student).follow_key == expected  # what the student's page gets
    assert versions.stored_class_version(engine, two.code).follow_key != expected
    assert one.teacher_token not in expected and display not in expected and len(expected) == 32
    assert versions.stored_class_version(engine, "QQQQQQ") is None


def test_the_version_route_says_when_a_student_page_must_redraw_whole(engine):
    """The route's layout (what a student's page shows beyond its live part) moves with Open, Lock, Next activity
    and an assignment's reveal, not with Show responses, Vote again or a prediction's reveal (those redraw the live
    part only); it is the one the student's own state gives (versions.page_layout of its activity)."""
    new = classes.create_class(engine)
    ann = admission.join_class(engine, new.code, "Ann").student_token

    def layouts():
        a = answers.student_state(engine, new.code, ann).activity
        mine = versions.page_layout(None, False, "", False) if a is None else versions.page_layout(
            a.id, a.locked, a.kind, a.revealed
        )
        route = versions.stored_class_version(engine, new.code).layout
        assert route == mine
        return route

    seen = [layouts()]
    classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    seen.append(layouts())
    activity = answers.student_state(engine, new.code, ann).activity.id
    answers.submit_prediction(engine, new.code, ann, activity, ["0.5", "0.5"])
    classes.show_responses(engine, new.code, new.teacher_token)
    seen.append(layouts())
    classes.vote_again(engine, new.code, new.teacher_token)
    seen.append(layouts())
    classes.reveal(engine, new.code, new.teacher_token)
    seen.append(layouts())
    classes.lock(engine, new.code, new.teacher_token)
    seen.append(layouts())
    classes.open_activity(engine, new.code, new.teacher_token, "assignment", {"seed": 1, "level": "zeros", "count": 2})
    seen.append(layouts())
    classes.reveal(engine, new.code, new.teacher_token)
    seen.append(layouts())
    classes.next_activity(engine, new.code, new.teacher_token)
    seen.append(layouts())
    first, second = activity, activity + 1
    assert seen == [
        "none",
        f"{first}.0",
        f"{first}.0",  # Show responses: the live part
        f"{first}.0",  # Vote again: the live part (round 2 is in the live key)
        f"{first}.0",  # a prediction's reveal: the live part
        f"{first}.1",  # Lock
        f"{second}.0.0",  # an assignment (its cards show the solutions once revealed)
        f"{second}.0.1",
        "none",
    ]


def test_the_version_route_says_when_a_new_version_is_nothing_a_student_page_draws(engine):
    """The route's live key: the layout, the round, the reveal and how many were removed. Show responses leaves it
    as it was (a student's page then takes the new version without a run); Vote again, a prediction's reveal and a
    removal move it."""
    new = classes.create_class(engine)
    ann = admission.join_class(engine, new.code, "Ann").student_token
    admission.join_class(engine, new.code, "Bob")
    classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    activity = answers.student_state(engine, new.code, ann).activity.id
    answers.submit_prediction(engine, new.code, ann, activity, ["0.5", "0.5"])

    def live():
        return versions.stored_class_version(engine, new.code).live

    opened = live()
    assert opened == f"{activity}.0|1|0|0"
    classes.show_responses(engine, new.code, new.teacher_token)
    assert live() == opened
    classes.vote_again(engine, new.code, new.teacher_token)
    assert live() == f"{activity}.0|2|0|0"
    classes.reveal(engine, new.code, new.teacher_token)
    assert live() == f"{activity}.0|2|1|0"
    bob = next(s.id for s in dashboards.dashboard(engine, new.code, new.teacher_token).students if s.name == "Bob")
    roster.remove_students(engine, new.code, new.teacher_token, [bob])
    assert live() == f"{activity}.0|2|1|1"


def test_a_newly_opened_activity_from_the_class_reading_is_what_the_database_then_gives(engine):
    """A student's page draws an activity the teacher just opened from the class's shared reading (newly_opened),
    not from a read of its own: that state equals student_state read afterwards, for a prediction and an assignment
    (nothing of the student's in them: no prediction, no attempts, no earlier round). Where the reading cannot tell
    (no activity open after Next activity, the student answered in it already, was removed, the same activity in a
    new round, nothing newer, an ended class) it gives None and the page reads."""
    new = classes.create_class(engine, "shared")
    ann = admission.join_class(engine, new.code, "Ann").student_token
    bob = admission.join_class(engine, new.code, "Bob").student_token

    def opened(token):
        return answers.newly_opened(answers.student_state(engine, new.code, token), reading())

    def reading():
        return answers.class_activity(engine, new.code)

    for step in (
        lambda: classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"}),
        lambda: classes.next_activity(engine, new.code, new.teacher_token),
    ):
        before = answers.student_state(engine, new.code, ann)
        step()
        after = answers.student_state(engine, new.code, ann)
        if after.activity is None:  # next_activity with nothing queued: no activity open
            assert answers.newly_opened(before, reading()) is None
            continue
        assert answers.newly_opened(before, reading()) == after
        assert after.prediction is None and after.attempts == {} and after.earlier is None
    before = {t: answers.student_state(engine, new.code, t) for t in (ann, bob)}
    classes.open_activity(engine, new.code, new.teacher_token, "assignment", {"seed": 1, "level": "zeros", "count": 2})
    assert answers.newly_opened(before[ann], reading()) == answers.student_state(engine, new.code, ann)
    problem = answers.student_state(engine, new.code, ann).activity
    answers.submit_answer(engine, new.code, ann, problem.id, 1, "0")  # Ann answered in it (wrong or right)
    assert answers.newly_opened(before[ann], reading()) is None  # her attempt is hers: read it
    assert answers.newly_opened(before[bob], reading()) == answers.student_state(engine, new.code, bob)
    bob_id = answers.student_state(engine, new.code, bob).student_id
    assert bob_id and reading().answered == {answers.student_state(engine, new.code, ann).student_id}
    roster.remove_students(engine, new.code, new.teacher_token, [bob_id])
    assert answers.newly_opened(before[bob], reading()) is None  # removed: the page reads (and says so)
    classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    current = answers.student_state(engine, new.code, ann)
    answers.submit_prediction(engine, new.code, ann, current.activity.id, ["0.5", "0.5"])
    classes.vote_again(engine, new.code, new.teacher_token)
    assert answers.newly_opened(current, reading()) is None  # the same activity, round 2: read
    classes.reveal(engine, new.code, new.teacher_token)
    assert opened(ann) is None  # nothing newer than the state itself
    classes.end_class(engine, new.code, new.teacher_token)
    assert answers.newly_opened(before[ann], reading()) is None


def test_a_reveal_or_show_responses_applied_to_the_last_state_is_what_the_database_then_gives(engine):
    """A student's live part redraws a Reveal or Show responses from the class's shared version (with_flags), not
    from a read of its own: that state equals student_state read afterwards (the exact answer only once revealed:
    the worked example's p - q on B and C is 3/10 and 1/10, so r is 3/4 and 1/4)."""
    new = classes.create_class(engine)
    ann = admission.join_class(engine, new.code, "Ann").student_token
    classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    activity = answers.student_state(engine, new.code, ann).activity.id
    answers.submit_prediction(engine, new.code, ann, activity, ["0.6", "0.4"])
    for act in (classes.show_responses, classes.reveal):
        before = answers.student_state(engine, new.code, ann)
        act(engine, new.code, new.teacher_token)
        current = versions.stored_class_version(engine, new.code)
        assert current.version == before.version + 1
        after = answers.with_flags(before, current.version, current.revealed, current.shown)
        assert after == answers.student_state(engine, new.code, ann)
    assert after.activity.shown and after.activity.revealed and after.exact == (F(3, 4), F(1, 4))
    assert answers.with_flags(before, before.version, False, True).exact is None  # not revealed: no exact answer


# --- schema 2: New teacher link, the projector's key, peer-instruction rounds, the address for students ------


def test_a_schema_1_database_is_migrated_and_keeps_its_classes(db_url):
    """A database made by the schema-1 app (no display_key, join_address, round, shown_at columns, no
    earlier_answers / retired_teacher_links tables) is migrated in place: its class keeps working and gets a
    projector key; a second prepare changes nothing."""
    from sqlalchemy import create_engine

    from lab.classroom import db as schema

    engine = make_engine(db_url)
    new = start(engine)
    ann = admission.join_class(engine, new.code, "Ann").student_token
    answers.submit_prediction(engine, new.code, ann, current_id(engine, new.code, ann), ["0.75", "0.25"])
    with engine.begin() as conn:  # back to schema 2, as the app before the projector left it
        conn.execute(text("DROP TABLE earlier_answers"))
        conn.execute(text("DROP TABLE retired_teacher_links"))
        for table, column in (
            ("classes", "display_key"),
            ("classes", "join_address"),
            ("activities", "round"),
            ("activities", "shown_at"),
        ):
            conn.execute(text(f"ALTER TABLE {table} DROP COLUMN {column}"))
        conn.execute(text("UPDATE schema_version SET version = 2"))
    engine.dispose()
    old = create_engine(db_url)
    schema.prepare(old)
    with old.connect() as conn:
        assert conn.execute(text("SELECT version FROM schema_version")).scalars().all() == [SCHEMA_VERSION]
        key = conn.execute(text("SELECT display_key FROM classes")).scalar_one()
    assert key and len(key) >= 22
    assert dashboards.dashboard(old, new.code, new.teacher_token).predict.submitted == 1
    assert dashboards.projection(old, new.code, key).submitted == 1
    old.dispose()
    again = make_engine(db_url)  # a new process: nothing to migrate
    with again.connect() as conn:
        assert conn.execute(text("SELECT display_key FROM classes")).scalar_one() == key
    again.dispose()


def test_new_teacher_link_refuses_the_old_one_at_once(engine):
    new = start(engine)
    ann = admission.join_class(engine, new.code, "Ann").student_token
    follow_before = versions.stored_class_version(engine, new.code).follow_key
    display_before = versions.stored_class_version(engine, new.code).display_key
    join_before = teacher_link.check_teacher(engine, new.code, new.teacher_token).join_key
    token = teacher_link.new_teacher_link(engine, new.code, new.teacher_token)
    assert token != new.teacher_token and len(token) >= 32
    for refused in (
        lambda t: teacher_link.check_teacher(engine, new.code, t),
        lambda t: dashboards.dashboard(engine, new.code, t),
        lambda t: classes.reveal(engine, new.code, t),
        lambda t: export.class_results_csv(engine, new.code, t),
        lambda t: teacher_link.new_teacher_link(engine, new.code, t),
    ):
        with pytest.raises(ClassroomError, match=f"teacher link of class {new.code} was replaced by a new one at"):
            refused(new.teacher_token)
    with pytest.raises(ClassroomError, match="This teacher link does not open a class"):  # never the class's
        dashboards.dashboard(engine, new.code, "forged")
    assert dashboards.dashboard(engine, new.code, token).joined == 1  # the new link works; the class is unchanged
    assert answers.student_state(engine, new.code, ann).activity is not None
    after = versions.stored_class_version(engine, new.code)
    # what students and the projector hold does not come from the teacher token: open student pages keep following,
    # the projector keeps its link, and a join link or QR code already shown still admits
    assert after.display_key == display_before and after.follow_key == follow_before
    assert answers.student_state(engine, new.code, ann).follow_key == follow_before
    assert teacher_link.check_teacher(engine, new.code, token).join_key == join_before
    assert admission.join_class(engine, new.code, "Bob", link_key=join_before).name == "Bob"
    assert dashboards.projection(engine, new.code, display_before).joined == 2
    with engine.connect() as conn:  # the plain token is stored nowhere
        dump = " ".join(
            str(v)
            for t in ("classes", "retired_teacher_links")
            for r in conn.execute(text(f"SELECT * FROM {t}"))
            for v in r
        )
    assert token not in dump and new.teacher_token not in dump


def test_the_projector_key_shows_the_class_but_no_name_and_changes_nothing(engine):
    new = start(engine)
    key = versions.stored_class_version(engine, new.code).display_key
    assert key and key != new.teacher_token
    tokens = {n: admission.join_class(engine, new.code, n).student_token for n in ("Ann", "Bob", "Cat")}
    activity = current_id(engine, new.code, tokens["Ann"])
    answers.submit_prediction(engine, new.code, tokens["Ann"], activity, ["0.75", "0.25"])
    answers.submit_prediction(engine, new.code, tokens["Bob"], activity, ["0.5", "0.5"])
    shown = dashboards.projection(engine, new.code, key)
    assert (shown.joined, shown.submitted) == (3, 2)
    assert shown.predict.values == ((0.75, 0.5), (0.25, 0.5))
    assert not hasattr(shown, "students")
    assert not any(name in repr(shown) for name in ("Ann", "Bob", "Cat"))
    for wrong in ("", key[:-1] + ("A" if key[-1] != "A" else "B"), new.teacher_token):
        with pytest.raises(ClassroomError, match="This projector link does not open a class"):
            dashboards.projection(engine, new.code, wrong)
    with pytest.raises(ClassroomError, match="teacher link does not open a class"):  # the key is no teacher link
        classes.reveal(engine, new.code, key)
    other = classes.create_class(engine)
    with pytest.raises(ClassroomError, match="projector link does not open a class"):
        dashboards.projection(engine, other.code, key)


def test_two_rounds_of_peer_instruction(engine):
    """Exact answer B = 3/4, C = 1/4; distance = |B − 3/4| + |C − 1/4|. Round 1: Ann 3/4, 1/4 (distance 0), Bob
    1/2, 1/2 (1/2), Cat 1/10, 3/5 (13/20 + 7/20 = 1). Round 2: Ann keeps hers (same), Bob 7/10, 3/10 (1/10:
    toward), Cat 0, 1 (3/4 + 3/4 = 3/2: away), Dan votes in round 2 only (not compared)."""
    new = start(engine)
    tokens = {n: admission.join_class(engine, new.code, n).student_token for n in ("Ann", "Bob", "Cat", "Dan")}
    activity = current_id(engine, new.code, tokens["Ann"])
    with pytest.raises(ClassroomError, match="Nobody has voted in round 1 yet"):
        classes.vote_again(engine, new.code, new.teacher_token)
    round1 = {"Ann": ["0.75", "0.25"], "Bob": ["0.5", "0.5"], "Cat": ["0.1", "0.6"]}
    for name, values in round1.items():
        answers.submit_prediction(engine, new.code, tokens[name], activity, values, round_number=1)
    classes.show_responses(engine, new.code, new.teacher_token)
    assert answers.student_state(engine, new.code, tokens["Ann"]).activity.shown
    assert classes.vote_again(engine, new.code, new.teacher_token) == 2
    state = answers.student_state(engine, new.code, tokens["Bob"])
    assert state.activity.round == 2 and not state.activity.shown and state.prediction is None
    assert state.earlier == (F(1, 2), F(1, 2))
    assert answers.student_state(engine, new.code, tokens["Dan"]).earlier is None
    with pytest.raises(ClassroomError, match="opened round 2 of this question"):  # a page still showing round 1
        answers.submit_prediction(engine, new.code, tokens["Bob"], activity, ["0.7", "0.3"], round_number=1)
    round2 = {"Ann": ["0.75", "0.25"], "Bob": ["0.7", "0.3"], "Cat": ["0", "1"], "Dan": ["0.6", "0.4"]}
    for name, values in round2.items():
        answers.submit_prediction(engine, new.code, tokens[name], activity, values, round_number=2)
    board = dashboards.dashboard(engine, new.code, new.teacher_token)
    assert board.earlier.values == ((0.75, 0.5, 0.1), (0.25, 0.5, 0.6))
    assert board.predict.values == ((0.75, 0.7, 0.0, 0.6), (0.25, 0.3, 1.0, 0.4))
    assert board.change == activities.RoundChange(both=3, toward=1, away=1, same=1)
    assert board.earlier.all_close_share == F(1, 3) and board.predict.all_close_share == F(2, 4)
    assert [s.voted_earlier for s in board.students] == [True, True, True, False]
    assert dashboards.projection(engine, new.code, board.klass.display_key).change == board.change
    with pytest.raises(ClassroomError, match="has had its 2 rounds"):
        classes.vote_again(engine, new.code, new.teacher_token)
    classes.reveal(engine, new.code, new.teacher_token)
    rows = list(csv.DictReader(io.StringIO(export.class_results_csv(engine, new.code, new.teacher_token))))
    assert [(r["student"], r["round"], r["answer"]) for r in rows] == [
        ("Ann", "1", "r(B) = 3/4; r(C) = 1/4"),
        ("Bob", "1", "r(B) = 1/2; r(C) = 1/2"),
        ("Cat", "1", "r(B) = 1/10; r(C) = 3/5"),
        ("Ann", "2", "r(B) = 3/4; r(C) = 1/4"),
        ("Bob", "2", "r(B) = 7/10; r(C) = 3/10"),
        ("Cat", "2", "r(B) = 0; r(C) = 1"),
        ("Dan", "2", "r(B) = 3/5; r(C) = 2/5"),
    ]


def test_vote_again_is_refused_after_the_reveal_and_on_assignments(engine):
    new = start(engine)
    ann = admission.join_class(engine, new.code, "Ann").student_token
    answers.submit_prediction(engine, new.code, ann, current_id(engine, new.code, ann), ["0.75", "0.25"])
    classes.reveal(engine, new.code, new.teacher_token)
    with pytest.raises(ClassroomError, match="already revealed"):
        classes.vote_again(engine, new.code, new.teacher_token)
    classes.open_activity(engine, new.code, new.teacher_token, "assignment", {"seed": 1, "level": "zeros", "count": 2})
    for action in (classes.vote_again, classes.show_responses):
        with pytest.raises(ClassroomError, match="works on a prediction activity"):
            action(engine, new.code, new.teacher_token)
    classes.next_activity(engine, new.code, new.teacher_token)
    with pytest.raises(ClassroomError, match="No activity is open"):
        classes.show_responses(engine, new.code, new.teacher_token)


def test_the_address_for_students_is_checked_and_kept(engine):
    new = start(engine)
    assert admission.set_join_address(engine, new.code, new.teacher_token, " http://192.168.1.20:8501 ") == (
        "http://192.168.1.20:8501"
    )
    assert dashboards.dashboard(engine, new.code, new.teacher_token).klass.join_address == "http://192.168.1.20:8501"
    for bad, message in (
        ("192.168.1.20:8501", "is not an http:// or https:// address"),
        ("ftp://x", "is not an http:// or https:// address"),
        ("http://", "is not an http:// or https:// address"),
        ("http://a b", "is not an http:// or https:// address"),
        ("http://host:port", "is not an http:// or https:// address"),
        ("http://x/" + "a" * 1000, "longer than 1,000 characters"),
    ):
        with pytest.raises(ClassroomError, match=message):
            admission.set_join_address(engine, new.code, new.teacher_token, bad)
    assert dashboards.dashboard(engine, new.code, new.teacher_token).klass.join_address == "http://192.168.1.20:8501"
    admission.set_join_address(engine, new.code, new.teacher_token, "")
    assert dashboards.dashboard(engine, new.code, new.teacher_token).klass.join_address == ""
