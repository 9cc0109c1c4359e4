"""Who is in a class: removing students, letting them back or in, and the seat each takes.

Removing one, many or by a rule (bulk_match), Let back in, letting in those waiting for approval.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.engine import Engine

from lab.classroom import db
from lab.classroom.dashboards import dashboard
from lab.classroom.db import reading, writing
from lab.classroom.limits import MAX_STUDENTS, MAX_WAITING
from lab.classroom.naming import name_key
from lab.classroom.records import bump_version
from lab.classroom.refusals import ClassroomError
from lab.classroom.teacher_link import teacher_class
from lab.core.errors import said
from lab.i18n import N_


def remove_students(engine: Engine, code: str, teacher_token: str, student_ids) -> int:
    """Remove students from the class (their answers stay in the CSV, marked removed); returns how many. A
    removed student's link stops working, and neither their browser session nor their name can join the class
    again until allow_back. Students waiting for approval can be removed too (a refused join). Ids that are not
    (or no longer) in the class are skipped."""
    ids = sorted({int(i) for i in student_ids})[: MAX_STUDENTS + MAX_WAITING + 1]
    with writing(engine) as conn:
        klass = teacher_class(conn, code, teacher_token)
        removed = seated = 0
        for sid in ids:
            row = conn.execute(
                text(
                    "UPDATE students SET removed_at = :at "
                    "WHERE id = :sid AND class_id = :cid AND removed_at IS NULL RETURNING approved"
                ),
                {"at": db.now(), "sid": sid, "cid": klass.id},
            ).first()
            if row is not None:
                removed += 1
                seated += int(row.approved != 0)
        if seated:
            conn.execute(
                text("UPDATE classes SET student_count = student_count - :n WHERE id = :id"),
                {"n": seated, "id": klass.id},
            )
        if removed:
            bump_version(conn, klass.id)
    return removed


def remove_student(engine: Engine, code: str, teacher_token: str, student_id: int) -> None:
    if not remove_students(engine, code, teacher_token, [student_id]):
        raise ClassroomError(said("That student is not in this class (already removed?)."))


def remove_not_submitted(engine: Engine, code: str, teacher_token: str) -> int:
    """Remove every student who has not answered the current activity (e.g. a flood of fake joins)."""
    with reading(engine) as conn:
        klass = teacher_class(conn, code, teacher_token)
        if klass.current_activity is None:
            raise ClassroomError(said("No activity is open: there is nothing to have submitted yet."))
        ids = (
            conn.execute(
                text(
                    "SELECT s.id FROM students s WHERE s.class_id = :cid AND s.removed_at IS NULL AND s.approved = 1 "
                    "AND NOT EXISTS "
                    "(SELECT 1 FROM submissions sub WHERE sub.student_id = s.id AND sub.activity_id = :a)"
                ),
                {"cid": klass.id, "a": klass.current_activity},
            )
            .scalars()
            .all()
        )
    return remove_students(engine, code, teacher_token, ids)


def take_seat(conn, class_id: int) -> bool:
    """Count one more student in the class, in the same statement that checks the limit (two joins at once
    cannot both take the last seat); False when there is no seat (MAX_STUDENTS)."""
    seat = conn.execute(
        text(
            "UPDATE classes SET student_count = student_count + 1 "
            "WHERE id = :id AND student_count < :max RETURNING student_count"
        ),
        {"id": class_id, "max": MAX_STUDENTS},
    ).first()
    return seat is not None


def allow_back(engine: Engine, code: str, teacher_token: str, student_id: int) -> None:
    """Let a removed student back in: their link works again (with their answers) and their browser and name may
    join again."""
    with writing(engine) as conn:
        klass = teacher_class(conn, code, teacher_token)
        if not take_seat(conn, klass.id):
            raise ClassroomError(
                said("The class is full ({count} students): remove someone first.", count=MAX_STUDENTS)
            )
        back = conn.execute(
            text(
                "UPDATE students SET removed_at = NULL, approved = 1 "
                "WHERE id = :sid AND class_id = :cid AND removed_at IS NOT NULL RETURNING id"
            ),
            {"sid": int(student_id), "cid": klass.id},
        ).first()
        if back is None:
            raise ClassroomError(said("That student was not removed from this class."))
        bump_version(conn, klass.id)


def admit_waiting(engine: Engine, code: str, teacher_token: str, student_ids) -> int:
    """Let in students who wait for approval (they joined beyond the expected size); returns how many. Each takes
    a seat; at MAX_STUDENTS the rest keep waiting and the refusal says so."""
    ids = sorted({int(i) for i in student_ids})[: MAX_WAITING + 1]
    admitted = 0
    with writing(engine) as conn:
        klass = teacher_class(conn, code, teacher_token)
        for sid in ids:
            waiting = conn.execute(
                text(
                    "SELECT 1 FROM students WHERE id = :sid AND class_id = :cid AND approved = 0 AND removed_at IS NULL"
                ),
                {"sid": sid, "cid": klass.id},
            ).first()
            if waiting is None:
                continue
            if not take_seat(conn, klass.id):
                break
            conn.execute(text("UPDATE students SET approved = 1 WHERE id = :sid"), {"sid": sid})
            admitted += 1
        if admitted:
            bump_version(conn, klass.id)
    return admitted


# bulk removal: the rules a teacher can pick, in the words the dashboard shows
BULK_RULES = {
    "no-submission": N_("has submitted nothing in this class"),
    "joined-recently": N_("joined within the last N seconds"),
    "duplicate-name": N_("repeats the name of someone who joined earlier"),
}


@dataclass(frozen=True)
class BulkMatch:
    """The students a bulk-removal rule takes out (``ids``, ``labels``) and the ones it matched but keeps because
    they submitted something (``kept``: removed only when the teacher includes them)."""

    ids: tuple[int, ...]
    labels: tuple[str, ...]
    kept: tuple[str, ...]


def bulk_match(
    engine: Engine, code: str, teacher_token: str, rule: str, seconds: int = 60, include_submitted: bool = False
) -> BulkMatch:
    """Who the rule ``rule`` (a key of BULK_RULES) would remove now, among the students in the class: a student who
    submitted anything (any activity, any round) only when ``include_submitted``."""
    if rule not in BULK_RULES:
        raise ClassroomError(
            said("Bulk removal: {rule} is not a rule ({rules}).", rule=repr(rule), rules=", ".join(BULK_RULES))
        )
    board = dashboard(engine, code, teacher_token)
    if not board.klass.open:
        raise ClassroomError(said("Class {code} has ended: nothing in it can change.", code=board.klass.code))
    with reading(engine) as conn:
        rows = conn.execute(
            text(
                "SELECT s.id, s.joined_at, s.name, "
                "(EXISTS (SELECT 1 FROM submissions sub WHERE sub.student_id = s.id) OR "
                "EXISTS (SELECT 1 FROM earlier_answers ea WHERE ea.student_id = s.id)) AS submitted "
                "FROM students s WHERE s.class_id = :cid AND s.removed_at IS NULL AND s.approved = 1 "
                "ORDER BY s.joined_at, s.id"
            ),
            {"cid": board.klass.id},
        ).all()
    labels = {s.id: s.label for s in board.students}
    matched = _matching(rows, rule, seconds, db.now())
    taken = [r for r in matched if include_submitted or not r.submitted]
    kept = [r for r in matched if r.submitted and not include_submitted]
    return BulkMatch(
        tuple(r.id for r in taken),
        tuple(labels.get(r.id, r.name) for r in taken),
        tuple(labels.get(r.id, r.name) for r in kept),
    )


def _matching(rows, rule: str, seconds: int, at: float) -> list:
    """The rows (in join order) that ``rule`` picks: no submission, joined in the last ``seconds``, or a name
    (name_key) that someone before them has."""
    seen: set[str] = set()
    matched = []
    for row in rows:
        key = name_key(row.name)
        if rule == "no-submission":
            hit = not row.submitted
        elif rule == "joined-recently":
            hit = row.joined_at >= at - max(0, int(seconds))
        else:
            hit = key in seen
        seen.add(key)
        if hit:
            matched.append(row)
    return matched
