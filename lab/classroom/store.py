"""A live class in the database: create, join, activities, submissions, the dashboard and the CSV export.

Every function takes a SQLAlchemy engine (prepared by :func:`lab.classroom.db.prepare`) and either returns
plain data or raises :class:`ClassroomError` with a message a teacher or student can act on; a refused
action writes nothing. Every query is parameterised. Secrets:

- the teacher token (``secrets.token_urlsafe(24)``, 192 bits) is shown once, in the teacher link; only its
  SHA-256 is stored. Every teacher action needs the class code *and* that token.
- a student id (``secrets.token_urlsafe(16)``, 128 bits) is the private part of the student's link; only its
  SHA-256 is stored. A student reads only their own submissions, and exact answers only after the reveal.
"""

from __future__ import annotations

import csv
import hashlib
import io
import secrets
from dataclasses import dataclass, field
from datetime import UTC, datetime
from fractions import Fraction
from typing import NamedTuple

from sqlalchemy import text
from sqlalchemy.engine import Engine

from lab.classroom.activities import (
    ASSIGNMENT,
    PREDICT,
    ActivityError,
    AssignmentSpec,
    AssignmentSummary,
    PredictSpec,
    PredictSummary,
    check_assignment_answer,
    decode_prediction,
    encode_params,
    encode_prediction,
    parse_prediction,
    spec_of,
    summarize_assignment,
    summarize_predictions,
)
from lab.classroom.db import now, prepare, reading, writing
from lab.core.distributions import LabInputError
from lab.core.formatting import fraction_text
from lab.teaching.exercises import Attempt, Check, score_prediction

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L
CODE_LENGTH = 6
MAX_STUDENTS = 500
MAX_NAME = 40
MAX_CLASS_NAME = 80
SUBMISSIONS_PER_MINUTE = 30
CODE_LIFETIME_S = 24 * 3600  # a code stops admitting students a day after the class started
KEEP_CLASS_S = 30 * 24 * 3600  # a class and its results are deleted 30 days after it started
KEEP_STUDY_S = 180 * 24 * 3600  # self-study attempts: 180 days after their last change
FREE_WRONG_CODES = 5  # wrong codes a client may try before each further try must wait
MAX_WRONG_CODE_WAIT_S = 60
FORGET_WRONG_CODES_S = 600


class ClassroomError(LabInputError):
    """A refused classroom action; the message says what was wrong and what to do."""


class RateLimited(ClassroomError):
    """Too many tries: ``wait`` seconds before the next one."""

    def __init__(self, message: str, wait: float):
        super().__init__(message)
        self.wait = wait


def token_hash(token: str) -> str:
    return hashlib.sha256(str(token).encode("utf-8")).hexdigest()


def normalize_code(text_: str) -> str:
    """A typed class code: case, spaces and dashes do not matter; characters outside the alphabet are named."""
    code = "".join(str(text_).split()).replace("-", "").upper()
    if not code:
        raise ClassroomError("Class code: type the 6-character code your teacher shows.")
    bad = next((ch for ch in code if ch not in CODE_ALPHABET), None)
    if bad is not None:
        raise ClassroomError(
            f"Class code: {bad!r} never appears in a class code (codes use the letters A–Z except I, L and O, "
            "and the digits 2–9)."
        )
    if len(code) != CODE_LENGTH:
        raise ClassroomError(f"Class code: {len(code)} characters; a class code has {CODE_LENGTH}.")
    return code


def check_name(name: str) -> str:
    cleaned = " ".join(str(name).split())
    if not cleaned:
        raise ClassroomError("Your name: type a name (1 to 40 characters) so your teacher knows who answered.")
    if len(cleaned) > MAX_NAME:
        raise ClassroomError(f"Your name: {len(cleaned)} characters; at most {MAX_NAME}.")
    if any(not ch.isprintable() for ch in cleaned):
        raise ClassroomError("Your name: contains a control character; use letters, digits and punctuation.")
    return cleaned


def _iso(ts: float | None) -> str:
    return "" if ts is None else datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


# --- classes ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NewClass:
    code: str
    teacher_token: str
    name: str


def purge_old(engine: Engine, at: float | None = None) -> None:
    """Delete classes older than 30 days (with their students and answers), stale self-study records and
    old wrong-code counters."""
    at = now() if at is None else at
    with writing(engine) as conn:
        old = {"cut": at - KEEP_CLASS_S}
        old_class = "SELECT id FROM classes WHERE created_at < :cut"
        old_activity = f"SELECT id FROM activities WHERE class_id IN ({old_class})"
        conn.execute(text(f"DELETE FROM submissions WHERE activity_id IN ({old_activity})"), old)
        conn.execute(text(f"DELETE FROM students WHERE class_id IN ({old_class})"), old)
        conn.execute(text(f"DELETE FROM activities WHERE class_id IN ({old_class})"), old)
        conn.execute(text("DELETE FROM classes WHERE created_at < :cut"), old)
        study_cut = {"cut": at - KEEP_STUDY_S}
        conn.execute(
            text("DELETE FROM study_attempts WHERE study_id IN (SELECT id FROM studies WHERE updated_at < :cut)"),
            study_cut,
        )
        conn.execute(text("DELETE FROM studies WHERE updated_at < :cut"), study_cut)
        conn.execute(text("DELETE FROM join_failures WHERE last_at < :cut"), {"cut": at - FORGET_WRONG_CODES_S})


def create_class(engine: Engine, name: str = "") -> NewClass:
    prepare(engine)
    cleaned = " ".join(str(name).split())
    if len(cleaned) > MAX_CLASS_NAME:
        raise ClassroomError(f"Class name: {len(cleaned)} characters; at most {MAX_CLASS_NAME}.")
    if any(not ch.isprintable() for ch in cleaned):
        raise ClassroomError("Class name: contains a control character.")
    purge_old(engine)
    token = secrets.token_urlsafe(24)
    for _ in range(20):
        code = "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))
        with writing(engine) as conn:
            taken = conn.execute(text("SELECT 1 FROM classes WHERE code = :code"), {"code": code}).first()
            if taken:
                continue
            conn.execute(
                text(
                    "INSERT INTO classes (code, name, teacher_hash, created_at, version, student_count) "
                    "VALUES (:code, :name, :hash, :at, 1, 0)"
                ),
                {"code": code, "name": cleaned, "hash": token_hash(token), "at": now()},
            )
        return NewClass(code, token, cleaned)
    raise ClassroomError("Could not find a free class code; try again.")  # pragma: no cover (31^6 codes)


@dataclass(frozen=True)
class ClassRow:
    id: int
    code: str
    name: str
    created_at: float
    ended_at: float | None
    current_activity: int | None
    version: int

    @property
    def open(self) -> bool:
        return self.ended_at is None and now() - self.created_at < CODE_LIFETIME_S


def _class_row(row) -> ClassRow:
    return ClassRow(row.id, row.code, row.name, row.created_at, row.ended_at, row.current_activity, row.version)


def _activity_row(row) -> ActivityView | None:
    """The class's current activity from a joined row (None when the class has none open)."""
    if row.activity_id is None:
        return None
    spec = spec_of(row.kind, row.params)
    return ActivityView(
        row.activity_id, row.position, row.kind, spec, row.revealed_at is not None, row.locked_at is not None
    )


_CLASS_COLUMNS = "c.id, c.code, c.name, c.created_at, c.ended_at, c.current_activity, c.version"


def _teacher_class(conn, code: str, teacher_token: str, *, must_be_open: bool = True) -> ClassRow:
    code = normalize_code(code)
    row = conn.execute(
        text(f"SELECT {_CLASS_COLUMNS}, c.teacher_hash FROM classes c WHERE c.code = :code"), {"code": code}
    ).first()
    if row is None:
        raise ClassroomError(f"No class has the code {code}: it may have ended more than 30 days ago.")
    if not teacher_token or not secrets.compare_digest(row.teacher_hash, token_hash(teacher_token)):
        raise ClassroomError(
            f"This teacher link does not belong to class {code}: only the private link shown when the class "
            "was started opens its dashboard."
        )
    klass = _class_row(row)
    if must_be_open and not klass.open:
        raise ClassroomError(f"Class {code} has ended: its results can still be downloaded, nothing can change.")
    return klass


def check_teacher(engine: Engine, code: str, teacher_token: str) -> ClassRow:
    """The class, if ``teacher_token`` is its teacher's (raises otherwise); ended classes are returned too."""
    with reading(engine) as conn:
        return _teacher_class(conn, code, teacher_token, must_be_open=False)


class ClassVersion(NamedTuple):
    version: int  # bumped by every teacher action
    open: bool
    follow_key: str  # what a student's page shows to read this (see follow_key)


def follow_key(teacher_hash: str) -> str:
    """The key a student's page presents to read its class's version over plain HTTP (lab.views.follow): 128
    bits derived one-way from the stored hash of the teacher token, so only a page the class's students were
    given can ask, and the version endpoint is no way to find out which class codes exist."""
    return hashlib.sha256(f"follow:{teacher_hash}".encode()).hexdigest()[:32]


def class_version(engine: Engine, code: str) -> ClassVersion | None:
    """The class-state version and whether the class is open: what a student's page polls. None for an
    unknown code."""
    with reading(engine) as conn:
        row = conn.execute(
            text("SELECT version, ended_at, created_at, teacher_hash FROM classes WHERE code = :code"),
            {"code": code},
        ).first()
    if row is None:
        return None
    is_open = row.ended_at is None and now() - row.created_at < CODE_LIFETIME_S
    return ClassVersion(row.version, is_open, follow_key(row.teacher_hash))


def _bump(conn, class_id: int) -> None:
    conn.execute(text("UPDATE classes SET version = version + 1 WHERE id = :id"), {"id": class_id})


def open_activity(engine: Engine, code: str, teacher_token: str, kind: str, params: dict) -> int:
    """Open a new activity (the previous one is locked); returns its position (1, 2, ...)."""
    try:
        stored = encode_params(kind, params)
    except ActivityError as exc:
        raise ClassroomError(str(exc)) from None
    with writing(engine) as conn:
        klass = _teacher_class(conn, code, teacher_token)
        at = now()
        if klass.current_activity is not None:
            conn.execute(
                text("UPDATE activities SET locked_at = :at WHERE id = :id AND locked_at IS NULL"),
                {"at": at, "id": klass.current_activity},
            )
        position = (
            conn.execute(text("SELECT COUNT(*) FROM activities WHERE class_id = :id"), {"id": klass.id}).scalar_one()
            + 1
        )
        activity_id = conn.execute(
            text(
                "INSERT INTO activities (class_id, position, kind, params, opened_at) "
                "VALUES (:cid, :pos, :kind, :params, :at) RETURNING id"
            ),
            {"cid": klass.id, "pos": position, "kind": kind, "params": stored, "at": at},
        ).scalar_one()
        conn.execute(
            text("UPDATE classes SET current_activity = :a WHERE id = :id"), {"a": activity_id, "id": klass.id}
        )
        _bump(conn, klass.id)
    return position


def _set_current(engine: Engine, code: str, teacher_token: str, column: str, value) -> None:
    assert column in ("revealed_at", "locked_at")
    with writing(engine) as conn:
        klass = _teacher_class(conn, code, teacher_token)
        if klass.current_activity is None:
            raise ClassroomError("No activity is open: open one first.")
        conn.execute(
            text(f"UPDATE activities SET {column} = :v WHERE id = :id"), {"v": value, "id": klass.current_activity}
        )
        _bump(conn, klass.id)


def reveal(engine: Engine, code: str, teacher_token: str) -> None:
    """Show the exact answer of the current activity to the class (submissions stay open until Lock)."""
    _set_current(engine, code, teacher_token, "revealed_at", now())


def lock(engine: Engine, code: str, teacher_token: str) -> None:
    _set_current(engine, code, teacher_token, "locked_at", now())


def unlock(engine: Engine, code: str, teacher_token: str) -> None:
    _set_current(engine, code, teacher_token, "locked_at", None)


def next_activity(engine: Engine, code: str, teacher_token: str) -> None:
    """Lock the current activity and leave the class waiting for the next one."""
    with writing(engine) as conn:
        klass = _teacher_class(conn, code, teacher_token)
        if klass.current_activity is not None:
            conn.execute(
                text("UPDATE activities SET locked_at = :at WHERE id = :id AND locked_at IS NULL"),
                {"at": now(), "id": klass.current_activity},
            )
        conn.execute(text("UPDATE classes SET current_activity = NULL WHERE id = :id"), {"id": klass.id})
        _bump(conn, klass.id)


def end_class(engine: Engine, code: str, teacher_token: str) -> None:
    """End the class: the code stops working for students; the teacher can still download the results."""
    with writing(engine) as conn:
        klass = _teacher_class(conn, code, teacher_token, must_be_open=False)
        if klass.ended_at is None:
            conn.execute(text("UPDATE classes SET ended_at = :at WHERE id = :id"), {"at": now(), "id": klass.id})
        _bump(conn, klass.id)


def remove_student(engine: Engine, code: str, teacher_token: str, student_id: int) -> None:
    with writing(engine) as conn:
        klass = _teacher_class(conn, code, teacher_token)
        removed = conn.execute(
            text(
                "UPDATE students SET removed_at = :at WHERE id = :sid AND class_id = :cid AND removed_at IS NULL "
                "RETURNING id"
            ),
            {"at": now(), "sid": int(student_id), "cid": klass.id},
        ).first()
        if removed is None:
            raise ClassroomError("That student is not in this class (already removed?).")
        conn.execute(text("UPDATE classes SET student_count = student_count - 1 WHERE id = :id"), {"id": klass.id})
        _bump(conn, klass.id)


# --- joining ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Joined:
    code: str
    student_token: str
    name: str


def _wrong_code_wait(conn, client_hash: str, at: float) -> float:
    row = conn.execute(
        text("SELECT failures, last_at FROM join_failures WHERE client_hash = :c"), {"c": client_hash}
    ).first()
    if row is None or at - row.last_at > FORGET_WRONG_CODES_S or row.failures < FREE_WRONG_CODES:
        return 0.0
    wait = min(MAX_WRONG_CODE_WAIT_S, 2 ** (row.failures - FREE_WRONG_CODES + 1))
    return max(0.0, row.last_at + wait - at)


def _record_wrong_code(engine: Engine, client_hash: str, at: float) -> None:
    with writing(engine) as conn:
        conn.execute(
            text(
                "INSERT INTO join_failures (client_hash, failures, last_at) VALUES (:c, 1, :at) "
                "ON CONFLICT (client_hash) DO UPDATE SET "
                "failures = CASE WHEN :at - join_failures.last_at > :forget THEN 1 "
                "ELSE join_failures.failures + 1 END, last_at = :at"
            ),
            {"c": client_hash, "at": at, "forget": FORGET_WRONG_CODES_S},
        )


def join_class(engine: Engine, code: str, name: str, client: str = "") -> Joined:
    """Join the class with ``code`` as ``name``. ``client`` identifies the device (e.g. its address): after
    five wrong codes from one client in ten minutes, each further try must wait (2, 4, ... up to 60 s)."""
    prepare(engine)
    client_hash = token_hash(f"client:{client}")
    at = now()
    with reading(engine) as conn:
        wait = _wrong_code_wait(conn, client_hash, at)
    if wait > 0:
        raise RateLimited(
            f"Too many wrong class codes from this device: wait {wait:.0f} s, then check the code with your teacher.",
            wait,
        )
    name = check_name(name)
    try:
        code = normalize_code(code)
    except ClassroomError:
        _record_wrong_code(engine, client_hash, at)
        raise
    token = secrets.token_urlsafe(16)
    with writing(engine) as conn:
        row = conn.execute(text(f"SELECT {_CLASS_COLUMNS} FROM classes c WHERE c.code = :code"), {"code": code}).first()
        klass = _class_row(row) if row is not None else None
        if klass is not None and klass.open:
            seat = conn.execute(
                text(
                    "UPDATE classes SET student_count = student_count + 1 "
                    "WHERE id = :id AND student_count < :max RETURNING student_count"
                ),
                {"id": klass.id, "max": MAX_STUDENTS},
            ).first()
            if seat is None:
                raise ClassroomError(f"Class {code} is full ({MAX_STUDENTS} students): ask your teacher.")
            conn.execute(
                text(
                    "INSERT INTO students (class_id, token_hash, name, joined_at, rate_start, rate_count) "
                    "VALUES (:cid, :hash, :name, :at, 0, 0)"
                ),
                {"cid": klass.id, "hash": token_hash(token), "name": name, "at": at},
            )
            return Joined(code, token, name)
    _record_wrong_code(engine, client_hash, at)
    if klass is None:
        raise ClassroomError(f"No open class has the code {code}: check the code with your teacher.")
    raise ClassroomError(f"Class {code} has ended: its code no longer admits students.")


# --- the student's side ---------------------------------------------------------------------------


@dataclass(frozen=True)
class ActivityView:
    id: int
    position: int
    kind: str
    spec: PredictSpec | AssignmentSpec
    revealed: bool
    locked: bool


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


_STUDENT_QUERY = f"""
SELECT s.id AS student_id, s.name AS student_name, s.removed_at, {_CLASS_COLUMNS}, c.teacher_hash,
       a.id AS activity_id, a.position, a.kind, a.params, a.revealed_at, a.locked_at
FROM students s
JOIN classes c ON c.id = s.class_id
LEFT JOIN activities a ON a.id = c.current_activity
WHERE s.token_hash = :hash
"""


def _student(conn, code: str, student_token: str):
    code = normalize_code(code)
    row = conn.execute(text(_STUDENT_QUERY), {"hash": token_hash(student_token or "")}).first()
    if row is None:
        raise ClassroomError("This student link is not valid: join the class again with its code and your name.")
    if row.code != code:
        raise ClassroomError(f"This student link belongs to another class, not {code}: use the link you joined with.")
    if row.removed_at is not None:
        raise ClassroomError("Your teacher removed you from this class.")
    klass = _class_row(row)
    if not klass.open:
        raise ClassroomError(f"Class {code} has ended: thank you for taking part.")
    activity = _activity_row(row)
    return row, klass, activity


def student_state(engine: Engine, code: str, student_token: str) -> StudentState:
    """What the student's page shows: the current activity, their own saved answers, and the exact answer
    only once the teacher revealed it."""
    with reading(engine) as conn:
        row, klass, activity = _student(conn, code, student_token)
        subs = []
        if activity is not None:
            subs = conn.execute(
                text(
                    "SELECT problem, answer, correct, tries, updated_at FROM submissions "
                    "WHERE activity_id = :a AND student_id = :s ORDER BY problem"
                ),
                {"a": activity.id, "s": row.student_id},
            ).all()
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
    return StudentState(
        klass.code,
        klass.name,
        row.student_name,
        klass.version,
        activity,
        prediction,
        saved_at,
        attempts,
        exact,
        follow_key(row.teacher_hash),
    )


def _count_submission(conn, student_id: int, at: float) -> None:
    count = conn.execute(
        text(
            "UPDATE students SET "
            "rate_count = CASE WHEN rate_start > :cut THEN rate_count + 1 ELSE 1 END, "
            "rate_start = CASE WHEN rate_start > :cut THEN rate_start ELSE :at END "
            "WHERE id = :id RETURNING rate_count, rate_start"
        ),
        {"cut": at - 60, "at": at, "id": student_id},
    ).first()
    if count.rate_count > SUBMISSIONS_PER_MINUTE:
        wait = max(1.0, count.rate_start + 60 - at)
        raise RateLimited(
            f"More than {SUBMISSIONS_PER_MINUTE} submissions in a minute: wait {wait:.0f} s; nothing was saved.", wait
        )


def _open_activity_for(activity: ActivityView | None, activity_id: int, kind: str) -> ActivityView:
    if activity is None or activity.id != activity_id:
        raise ClassroomError("Your teacher has moved on to another activity: this answer was not saved.")
    if activity.kind != kind:
        raise ClassroomError("This answer does not fit the current activity: it was not saved.")
    if activity.locked:
        raise ClassroomError("Your teacher has locked this activity: answers can no longer change.")
    return activity


@dataclass(frozen=True)
class Saved:
    updated_at: float
    revisions: int


def submit_prediction(engine: Engine, code: str, student_token: str, activity_id: int, values) -> Saved:
    """Save (or revise) the student's prediction for the open activity; returns once committed."""
    at = now()
    with writing(engine) as conn:
        row, _klass, activity = _student(conn, code, student_token)
        activity = _open_activity_for(activity, activity_id, PREDICT)
        try:
            parsed = parse_prediction(activity.spec, values)
        except ActivityError as exc:
            raise ClassroomError(str(exc)) from None
        _count_submission(conn, row.student_id, at)
        saved = conn.execute(
            text(
                "INSERT INTO submissions (activity_id, student_id, problem, answer, correct, tries, revisions, "
                "created_at, updated_at) VALUES (:a, :s, 0, :answer, 0, 1, 1, :at, :at) "
                "ON CONFLICT (activity_id, student_id, problem) DO UPDATE SET answer = excluded.answer, "
                "tries = submissions.tries + 1, revisions = submissions.revisions + 1, "
                "updated_at = excluded.updated_at "
                "RETURNING updated_at, revisions"
            ),
            {"a": activity.id, "s": row.student_id, "answer": encode_prediction(parsed), "at": at},
        ).first()
    return Saved(saved.updated_at, saved.revisions)


def submit_answer(
    engine: Engine, code: str, student_token: str, activity_id: int, problem_number: int, answer: str
) -> tuple[Check, Attempt]:
    """Check an assignment answer as the Exercises page does and save the attempt (unreadable input is
    not saved and does not use a try; an answer after a correct one changes nothing)."""
    at = now()
    with writing(engine) as conn:
        row, _klass, activity = _student(conn, code, student_token)
        activity = _open_activity_for(activity, activity_id, ASSIGNMENT)
        problems = activity.spec.problems
        if not 1 <= int(problem_number) <= len(problems):
            raise ClassroomError(f"Problem {problem_number} is not part of this assignment (1 to {len(problems)}).")
        problem = problems[int(problem_number) - 1]
        _count_submission(conn, row.student_id, at)
        old = conn.execute(
            text(
                "SELECT answer, correct, tries FROM submissions "
                "WHERE activity_id = :a AND student_id = :s AND problem = :p"
            ),
            {"a": activity.id, "s": row.student_id, "p": problem.number},
        ).first()
        attempt = Attempt(old.answer, bool(old.correct), old.tries) if old else Attempt()
        before = (attempt.answer, attempt.correct, attempt.tries)
        try:
            check = check_assignment_answer(attempt, problem, answer)
        except ActivityError as exc:
            raise ClassroomError(str(exc)) from None
        if (attempt.answer, attempt.correct, attempt.tries) != before:
            conn.execute(
                text(
                    "INSERT INTO submissions (activity_id, student_id, problem, answer, correct, tries, revisions, "
                    "created_at, updated_at) VALUES (:a, :s, :p, :answer, :correct, :tries, 1, :at, :at) "
                    "ON CONFLICT (activity_id, student_id, problem) DO UPDATE SET answer = excluded.answer, "
                    "correct = excluded.correct, tries = excluded.tries, revisions = submissions.revisions + 1, "
                    "updated_at = excluded.updated_at"
                ),
                {
                    "a": activity.id,
                    "s": row.student_id,
                    "p": problem.number,
                    "answer": attempt.answer,
                    "correct": int(attempt.correct),
                    "tries": attempt.tries,
                    "at": at,
                },
            )
    return check, attempt


# --- the teacher's dashboard ----------------------------------------------------------------------


@dataclass(frozen=True)
class StudentRow:
    id: int
    name: str
    submitted: bool


@dataclass(frozen=True)
class Dashboard:
    klass: ClassRow
    students: tuple[StudentRow, ...]
    activity: ActivityView | None
    predict: PredictSummary | None
    assignment: AssignmentSummary | None

    @property
    def joined(self) -> int:
        return len(self.students)

    @property
    def submitted(self) -> int:
        return sum(s.submitted for s in self.students)


# ONE query: the class (checked against the teacher's token hash), its current activity, every student still
# in the class and their submissions to that activity.
_DASHBOARD_QUERY = f"""
SELECT {_CLASS_COLUMNS}, c.teacher_hash,
       a.id AS activity_id, a.position, a.kind, a.params, a.revealed_at, a.locked_at,
       s.id AS student_id, s.name AS student_name,
       sub.problem, sub.answer, sub.correct, sub.tries
FROM classes c
LEFT JOIN activities a ON a.id = c.current_activity
LEFT JOIN students s ON s.class_id = c.id AND s.removed_at IS NULL
LEFT JOIN submissions sub ON sub.student_id = s.id AND sub.activity_id = c.current_activity
WHERE c.code = :code
ORDER BY s.joined_at, s.id, sub.problem
"""


def dashboard(engine: Engine, code: str, teacher_token: str) -> Dashboard:
    code = normalize_code(code)
    with reading(engine) as conn:
        rows = conn.execute(text(_DASHBOARD_QUERY), {"code": code}).all()
    if not rows:
        raise ClassroomError(f"No class has the code {code}: it may have ended more than 30 days ago.")
    first = rows[0]
    if not teacher_token or not secrets.compare_digest(first.teacher_hash, token_hash(teacher_token)):
        raise ClassroomError(
            f"This teacher link does not belong to class {code}: only the private link shown when the class "
            "was started opens its dashboard."
        )
    klass = _class_row(first)
    activity = _activity_row(first)
    names: dict[int, str] = {}
    subs: dict[int, list] = {}
    for row in rows:
        if row.student_id is None:
            continue
        names[row.student_id] = row.student_name
        bucket = subs.setdefault(row.student_id, [])
        if row.problem is not None:
            bucket.append(row)
    students = tuple(StudentRow(sid, names[sid], bool(subs[sid])) for sid in names)
    predict = assignment = None
    if activity is not None and activity.kind == PREDICT:
        predictions = [decode_prediction(subs[s.id][0].answer) for s in students if subs[s.id]]
        predict = summarize_predictions(activity.spec, predictions)
    elif activity is not None:
        per_student = [
            (s.name, {r.problem: Attempt(r.answer, bool(r.correct), r.tries) for r in subs[s.id]}) for s in students
        ]
        assignment = summarize_assignment(activity.spec, per_student)
    return Dashboard(klass, students, activity, predict, assignment)


# --- results export -------------------------------------------------------------------------------

_FORMULA_START = ("=", "+", "-", "@", "\t", "\r")


def csv_cell(value) -> str:
    """A CSV field that a spreadsheet shows as text: a leading = + - @ tab or CR gets an apostrophe."""
    text_ = "" if value is None else str(value)
    return "'" + text_ if text_.startswith(_FORMULA_START) else text_


CSV_HEADER = (
    "class",
    "class code",
    "activity",
    "activity title",
    "student",
    "question",
    "answer",
    "exact",
    "score",
    "correct",
    "tries",
    "first saved",
    "last saved",
)


def _fractions(fields, values) -> str:
    return "; ".join(f"{f} = {fraction_text(v)}" for f, v in zip(fields, values))


def results_csv(engine: Engine, code: str, teacher_token: str) -> str:
    """Every activity's submissions, one row per student and question, every field formula-escaped."""
    with reading(engine) as conn:
        klass = _teacher_class(conn, code, teacher_token, must_be_open=False)
        rows = conn.execute(
            text(
                "SELECT a.position, a.kind, a.params, s.name, sub.problem, sub.answer, sub.correct, sub.tries, "
                "sub.created_at, sub.updated_at FROM activities a "
                "JOIN submissions sub ON sub.activity_id = a.id JOIN students s ON s.id = sub.student_id "
                "WHERE a.class_id = :cid ORDER BY a.position, s.joined_at, s.id, sub.problem"
            ),
            {"cid": klass.id},
        ).all()
    out = io.StringIO()
    writer = csv.writer(out, lineterminator="\n")
    writer.writerow(CSV_HEADER)
    specs: dict[tuple[str, str], PredictSpec | AssignmentSpec] = {}
    for r in rows:
        spec = specs.setdefault((r.kind, r.params), spec_of(r.kind, r.params))
        if r.kind == PREDICT:
            values = decode_prediction(r.answer)
            bars = values[: len(spec.tokens)]
            score = score_prediction(spec.truth, bars).score
            all_close = all(abs(v - e) <= Fraction(1, 20) for v, e in zip(values, spec.exact))
            cells = ["prediction", _fractions(spec.fields, values), _fractions(spec.fields, spec.exact)]
            cells += [f"{float(score):.3f}", "yes" if all_close else "no", r.tries]
        else:
            problem = spec.problems[r.problem - 1]
            cells = [f"problem {r.problem}", r.answer, problem.answer_text, "1" if r.correct else "0"]
            cells += ["yes" if r.correct else "no", r.tries]
        row = [klass.name, klass.code, r.position, spec.title, r.name, *cells, _iso(r.created_at), _iso(r.updated_at)]
        writer.writerow([csv_cell(v) for v in row])
    return out.getvalue()
