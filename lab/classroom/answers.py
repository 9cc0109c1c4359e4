"""A student's side of a class: their link checked, what their page shows, the answers they save."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from fractions import Fraction

from sqlalchemy import text
from sqlalchemy.engine import Engine

from lab.classroom import db
from lab.classroom.activities import (
    ASSIGNMENT,
    PREDICT,
    ActivityError,
    check_assignment_answer,
    decode_prediction,
    encode_prediction,
    parse_prediction,
)
from lab.classroom.db import reading, writing
from lab.classroom.keys import follow_key, link_seed, token_hash
from lab.classroom.limits import count_submission
from lab.classroom.naming import normalize_code
from lab.classroom.records import (
    ACTIVITY_COLUMNS,
    CLASS_COLUMNS,
    KEEP_CLASS_S,
    ActivityView,
    activity_record,
    class_record,
)
from lab.classroom.refusals import ClassroomError, Removed, Waiting
from lab.core.errors import said, said_of
from lab.teaching.exercises import Attempt, Check


@dataclass(frozen=True)
class StudentState:
    code: str
    class_name: str
    name: str
    version: int
    activity: ActivityView | None
    prediction: tuple[Fraction, ...] | None  # the student's saved prediction (predict activities)
    saved_at: float | None
    attempts: dict[int, Attempt] = field(default_factory=dict)  # the student's saved answers (assignments)
    exact: tuple[Fraction, ...] | None = None  # only after the reveal
    follow_key: str = ""  # what the page presents to read the class's version (follow_key())
    open: bool = True  # False once the class ended (or its code expired): the page is read-only
    earlier: tuple[Fraction, ...] | None = None  # the student's prediction in the round before this one
    student_id: int = 0  # the student's row (what class_activity's ``answered`` and ``removed`` hold)


_STUDENT_QUERY = f"""
SELECT s.id AS student_id, s.name AS student_name, s.removed_at, s.approved, {CLASS_COLUMNS}, c.teacher_hash,
       {ACTIVITY_COLUMNS}{{extra}}
FROM students s
JOIN classes c ON c.id = s.class_id
LEFT JOIN activities a ON a.id = c.current_activity{{joins}}
WHERE s.token_hash = :hash
"""
_STUDENT = text(_STUDENT_QUERY.format(extra="", joins=""))
# What a student's page shows, in one round trip (every page of a class reads it at the same moment when the teacher
# opens an activity or a new round): the student, the class and its current activity, a row for each of the student's
# submissions to it (a prediction has one, an assignment one per problem), and their prediction of the round before.
_STATE = text(
    _STUDENT_QUERY.format(
        extra=",\n       sub.problem AS sub_problem, sub.answer AS sub_answer, sub.correct AS sub_correct, "
        "sub.tries AS sub_tries, sub.updated_at AS sub_updated_at, e.answer AS earlier_answer",
        joins="\nLEFT JOIN submissions sub ON sub.activity_id = a.id AND sub.student_id = s.id"
        "\nLEFT JOIN earlier_answers e ON e.activity_id = a.id AND e.student_id = s.id AND e.round = a.round - 1",
    )
    + "ORDER BY sub.problem"
)


@dataclass(frozen=True)
class _Submission:
    problem: int
    answer: str
    correct: int
    tries: int
    updated_at: float


def _student(conn, code: str, student_token: str, *, for_write: bool = True):
    row = conn.execute(_STUDENT, {"hash": token_hash(student_token or "")}).first()
    return _checked_student(row, code, for_write=for_write)


LINK_NOT_VALID = said("This student link is not valid: join the class again with its code and your name.")


def _checked_student(row, code: str, *, for_write: bool):
    """The student's row checked against the class code of their link: (row, the class, its current activity)."""
    code = normalize_code(code)
    if row is None:
        raise ClassroomError(LINK_NOT_VALID)
    if row.code != code:
        raise ClassroomError(
            said("This student link belongs to another class, not {code}: use the link you joined with.", code=code)
        )
    if row.removed_at is not None:
        raise Removed(said("Your teacher removed you from this class."))
    if not row.approved:
        raise Waiting(said(
            "You are waiting to be let in: class {code} has as many students as your teacher expected, so "
            "your teacher lets each new student in from the dashboard. This page opens by itself when you are in.",
            code=row.code,
        ))
    klass = class_record(row)
    if klass.created_at < db.now() - KEEP_CLASS_S:
        raise ClassroomError(LINK_NOT_VALID)
    if for_write and not klass.open:
        raise ClassroomError(
            said("Class {code} has ended: nothing can change now; thank you for taking part.", code=code)
        )
    activity = activity_record(row)
    return row, klass, activity


def with_flags(state: StudentState, version: int, revealed: bool, shown: bool) -> StudentState:
    """``state`` (with a current activity) as the teacher's Reveal or Show responses left it at ``version``: what
    student_state would read then, without reading (the exact answer of a prediction only once revealed)."""
    activity = replace(state.activity, revealed=revealed, shown=shown)
    exact = activity.spec.exact if activity.kind == PREDICT and revealed else None
    return replace(state, version=version, activity=activity, exact=exact)


def student_state(engine: Engine, code: str, student_token: str) -> StudentState:
    """What the student's page shows: the current activity, their own saved answers, and the exact answer
    only once the teacher revealed it."""
    with reading(engine) as conn:
        rows = conn.execute(_STATE, {"hash": token_hash(student_token or "")}).all()
    row, klass, activity = _checked_student(rows[0] if rows else None, code, for_write=False)
    subs = []
    earlier = None
    if activity is not None:
        subs = [
            _Submission(r.sub_problem, r.sub_answer, r.sub_correct, r.sub_tries, r.sub_updated_at)
            for r in rows
            if r.sub_problem is not None
        ]
        earlier = decode_prediction(row.earlier_answer) if row.earlier_answer is not None else None
    prediction, saved_at, attempts, exact = _shown_answers(activity, subs)
    return StudentState(
        klass.code, klass.name, row.student_name, klass.version, activity, prediction, saved_at, attempts, exact,
        follow_key(link_seed(row)), klass.open, earlier, row.student_id,
    )  # fmt: skip


@dataclass(frozen=True)
class ClassActivity:
    """A class's current activity as each student's page of it reads it, with who has an answer saved in it and
    who was removed: one reading for the whole class (lab.views.live_class.database keeps it half a second)."""

    version: int
    open: bool
    valid: bool  # the class is not past KEEP_CLASS_S (its links then stop working)
    class_name: str
    follow_key: str
    activity: ActivityView | None
    answered: frozenset[int]  # students with an answer saved in the current activity
    removed: frozenset[int]  # students removed from the class


_CLASS_ACTIVITY = text(
    f"SELECT {CLASS_COLUMNS}, c.teacher_hash, {ACTIVITY_COLUMNS} FROM classes c "
    "LEFT JOIN activities a ON a.id = c.current_activity WHERE c.code = :code"
)
_ANSWERED = text("SELECT DISTINCT student_id FROM submissions WHERE activity_id = :a")
_REMOVED = text("SELECT id FROM students WHERE class_id = :c AND removed_at IS NOT NULL")


def class_activity(engine: Engine, code: str) -> ClassActivity | None:
    """The class's current activity, who answered in it and who was removed (None for an unknown code)."""
    with reading(engine) as conn:
        row = conn.execute(_CLASS_ACTIVITY, {"code": normalize_code(code)}).first()
        if row is None:
            return None
        klass, activity = class_record(row), activity_record(row)
        answered = conn.execute(_ANSWERED, {"a": activity.id}).scalars().all() if activity is not None else ()
        removed = conn.execute(_REMOVED, {"c": klass.id}).scalars().all()
    valid = klass.created_at >= db.now() - KEEP_CLASS_S
    return ClassActivity(
        klass.version, klass.open, valid, klass.name, follow_key(link_seed(row)), activity, frozenset(answered),
        frozenset(removed),
    )  # fmt: skip


def newly_opened(last: StudentState, current: ClassActivity) -> StudentState | None:
    """The student's state once the teacher opened a new activity, from ``last`` (this student's state as their
    page last read it) and the class's shared reading, without reading the student's own: what student_state would
    read at that reading, or None when that is not known from it (then read). Known when the activity is another
    one than ``last``'s, in its first round and not revealed, and the reading says this student has no answer in it
    and was not removed: then nothing of theirs is in it yet (``_shown_answers`` of no answers). Every page of a
    class redraws at that moment; one reading for the class instead of one read a page (docs/decisions/0002)."""
    activity = current.activity
    if (
        activity is None
        or not (current.open and current.valid)
        or current.version <= last.version
        or (last.activity is not None and last.activity.id == activity.id)
        or activity.round != 1
        or activity.revealed
        or last.student_id in current.answered
        or last.student_id in current.removed
        or not last.student_id
    ):
        return None
    prediction, saved_at, attempts, exact = _shown_answers(activity, [])
    return replace(
        last, version=current.version, activity=activity, prediction=prediction, saved_at=saved_at,
        attempts=attempts, exact=exact, open=True, earlier=None, class_name=current.class_name,
        follow_key=current.follow_key,
    )  # fmt: skip


def _shown_answers(activity: ActivityView | None, subs):
    """(the saved prediction, when it was saved, the assignment's attempts, the exact answer once revealed)."""
    prediction = saved_at = exact = None
    attempts: dict[int, Attempt] = {}
    if activity is not None and activity.kind == PREDICT:
        if subs:
            prediction, saved_at = decode_prediction(subs[0].answer), subs[0].updated_at
        if activity.revealed:
            exact = activity.spec.exact
    elif activity is not None:
        attempts = {s.problem: Attempt(s.answer, bool(s.correct), s.tries) for s in subs}
        saved_at = max((s.updated_at for s in subs), default=None)
    return prediction, saved_at, attempts, exact


def _open_activity_for(
    activity: ActivityView | None, activity_id: int, kind: str, round_number: int | None = None
) -> ActivityView:
    if activity is None or activity.id != activity_id:
        raise ClassroomError(said("Your teacher has moved on to another activity: this answer was not saved."))
    if round_number is not None and activity.round != round_number:
        raise ClassroomError(said(
            "Your teacher opened round {round} of this question: this answer was not saved. Vote again.",
            round=activity.round,
        ))
    if activity.kind != kind:
        raise ClassroomError(said("This answer does not fit the current activity: it was not saved."))
    if activity.revealed:  # the reveal closes the round: an answer after it would only copy the answer
        raise ClassroomError(
            said("Your teacher has revealed the answer: this activity is closed, and this answer was not saved.")
        )
    if activity.timed_out:  # the countdown ended: the vote is locked, as by Lock
        raise ClassroomError(said("The time for this vote is up: this answer was not saved."))
    if activity.locked:
        raise ClassroomError(said("Your teacher has locked this activity: answers can no longer change."))
    return activity


# a write is made only while its activity is neither revealed nor locked nor past its countdown (at the write's
# time, :at), checked in the statement itself: on PostgreSQL a reveal committed by another session after this
# transaction read the activity is seen here
STILL_OPEN = (
    "EXISTS (SELECT 1 FROM activities WHERE id = :a AND revealed_at IS NULL AND locked_at IS NULL "
    "AND (closes_at IS NULL OR closes_at > :at))"
)
CLOSED_MEANWHILE = said(
    "Your teacher closed this activity a moment ago (revealed, locked, or its time ran out): this answer was not saved."
)


@dataclass(frozen=True)
class Saved:
    updated_at: float
    revisions: int


def submit_prediction(
    engine: Engine, code: str, student_token: str, activity_id: int, values, round_number: int | None = None,
    decimal_comma: bool = False,
) -> Saved:
    """Save (or revise) the student's prediction for the open activity (for its round ``round_number``, the one
    the student's page showed, when given; ``decimal_comma``: its language writes 0,25); returns once committed."""
    at = db.now()
    with writing(engine) as conn:
        row, _klass, activity = _student(conn, code, student_token)
        activity = _open_activity_for(activity, activity_id, PREDICT, round_number)
        try:
            parsed = parse_prediction(activity.spec, values, decimal_comma=decimal_comma)
        except ActivityError as exc:
            raise ClassroomError(said_of(exc)) from None
        count_submission(conn, row.student_id, at)
        saved = conn.execute(
            text(
                "INSERT INTO submissions (activity_id, student_id, problem, answer, correct, tries, revisions, "
                f"created_at, updated_at) SELECT :a, :s, 0, :answer, 0, 1, 1, :at, :at WHERE {STILL_OPEN} "
                "ON CONFLICT (activity_id, student_id, problem) DO UPDATE SET answer = excluded.answer, "
                "tries = submissions.tries + 1, revisions = submissions.revisions + 1, "
                "updated_at = excluded.updated_at "
                "RETURNING updated_at, revisions"
            ),
            {"a": activity.id, "s": row.student_id, "answer": encode_prediction(parsed), "at": at},
        ).first()
        if saved is None:  # revealed or locked since this transaction read the activity (another database session)
            raise ClassroomError(CLOSED_MEANWHILE)
    return Saved(saved.updated_at, saved.revisions)


def submit_answer(
    engine: Engine, code: str, student_token: str, activity_id: int, problem_number: int, answer: str
) -> tuple[Check, Attempt]:
    """Check an assignment answer as the Exercises page does and save the attempt (unreadable input is
    not saved and does not use a try; an answer after a correct one changes nothing)."""
    at = db.now()
    with writing(engine) as conn:
        row, _klass, activity = _student(conn, code, student_token)
        activity = _open_activity_for(activity, activity_id, ASSIGNMENT)
        problem = _problem(activity, problem_number)
        count_submission(conn, row.student_id, at)
        attempt = _saved_attempt(conn, activity.id, row.student_id, problem.number)
        before = (attempt.answer, attempt.correct, attempt.tries)
        try:
            check = check_assignment_answer(attempt, problem, answer)
        except ActivityError as exc:
            raise ClassroomError(said_of(exc)) from None
        if (attempt.answer, attempt.correct, attempt.tries) != before:
            _save_attempt(conn, activity.id, row.student_id, problem.number, attempt, at)
    return check, attempt


def _problem(activity: ActivityView, problem_number: int):
    problems = activity.spec.problems
    if not 1 <= int(problem_number) <= len(problems):
        raise ClassroomError(said(
            "Problem {number} is not part of this assignment (1 to {count}).",
            number=problem_number, count=len(problems),
        ))
    return problems[int(problem_number) - 1]


def _saved_attempt(conn, activity_id: int, student_id: int, number: int) -> Attempt:
    old = conn.execute(
        text(
            "SELECT answer, correct, tries FROM submissions WHERE activity_id = :a AND student_id = :s AND problem = :p"
        ),
        {"a": activity_id, "s": student_id, "p": number},
    ).first()
    return Attempt(old.answer, bool(old.correct), old.tries) if old else Attempt()


def _save_attempt(conn, activity_id: int, student_id: int, number: int, attempt: Attempt, at: float) -> None:
    saved = conn.execute(
        text(
            "INSERT INTO submissions (activity_id, student_id, problem, answer, correct, tries, revisions, "
            f"created_at, updated_at) SELECT :a, :s, :p, :answer, :correct, :tries, 1, :at, :at WHERE {STILL_OPEN} "
            "ON CONFLICT (activity_id, student_id, problem) DO UPDATE SET answer = excluded.answer, "
            "correct = excluded.correct, tries = excluded.tries, revisions = submissions.revisions + 1, "
            "updated_at = excluded.updated_at RETURNING revisions"
        ),
        {
            "a": activity_id, "s": student_id, "p": number, "answer": attempt.answer,
            "correct": int(attempt.correct), "tries": attempt.tries, "at": at,
        },  # fmt: skip
    ).first()
    if saved is None:  # revealed or locked since this transaction read the activity (another database session)
        raise ClassroomError(CLOSED_MEANWHILE)
