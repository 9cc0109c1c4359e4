"""The teacher's dashboard and the projector's view: one query per read, aggregated.

The query reads the class, its current activity, every student and their answers to it; the aggregation is
in named steps (_gather, _rosters, _summaries) and the projector sees a Projection of it.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from fractions import Fraction

from sqlalchemy import text
from sqlalchemy.engine import Engine

from lab.classroom import db
from lab.classroom.activities import (
    PREDICT,
    AssignmentSummary,
    PredictSummary,
    RoundChange,
    compare_rounds,
    decode_prediction,
    summarize_assignment,
    summarize_predictions,
)
from lab.classroom.db import reading
from lab.classroom.limits import JOIN_BURST, JOIN_BURST_WINDOW_S
from lab.classroom.naming import distinct_labels, normalize_code
from lab.classroom.records import (
    ACTIVITY_COLUMNS,
    CLASS_COLUMNS,
    KEEP_CLASS_S,
    ActivityView,
    ClassRow,
    activity_record,
    class_record,
)
from lab.classroom.refusals import ClassroomError
from lab.classroom.teacher_link import check_teacher_row
from lab.core.errors import said
from lab.teaching.exercises import Attempt


@dataclass(frozen=True)
class StudentRow:
    id: int
    name: str
    submitted: bool
    label: str = ""  # the name, told apart from the same name earlier in the class: "Ann", "Ann (2)"
    voted_earlier: bool = False  # peer instruction: voted in the round before the current one
    joined_at: float = 0.0

    def __post_init__(self):
        if not self.label:
            object.__setattr__(self, "label", self.name)


@dataclass(frozen=True)
class Projection:
    """What the projector shows: the class's figures, never a name or a secret of the teacher's."""

    klass: ClassRow
    joined: int
    submitted: int  # in the current round
    activity: ActivityView | None
    predict: PredictSummary | None  # the current round
    earlier: PredictSummary | None  # the round before it (round 1 while round 2 is open), else None
    change: RoundChange | None  # how the students who voted in both rounds moved
    solved: tuple[Fraction | None, ...] = ()  # assignments: share of the class that solved each problem


@dataclass(frozen=True)
class Dashboard:
    klass: ClassRow
    students: tuple[StudentRow, ...]
    activity: ActivityView | None
    predict: PredictSummary | None
    assignment: AssignmentSummary | None
    removed: tuple[StudentRow, ...] = ()  # removed students (the teacher may let them back in)
    waiting: tuple[StudentRow, ...] = ()  # joined beyond the expected size: waiting for the teacher's approval
    earlier: PredictSummary | None = None  # peer instruction: the previous round's predictions
    change: RoundChange | None = None
    read_at: float = 0.0  # when the store read it (db.now())

    @property
    def joined(self) -> int:
        return len(self.students)

    @property
    def joins_just_now(self) -> int:
        """Joins (seated, waiting or removed since) in the JOIN_BURST_WINDOW_S seconds before the board was read."""
        since = self.read_at - JOIN_BURST_WINDOW_S
        return sum(s.joined_at > since for s in (*self.students, *self.waiting, *self.removed))

    @property
    def joins_too_fast(self) -> bool:
        """Joins arriving faster than people type (JOIN_BURST in JOIN_BURST_WINDOW_S): the dashboard warns."""
        return self.joins_just_now >= JOIN_BURST

    @property
    def submitted(self) -> int:
        return sum(s.submitted for s in self.students)

    @property
    def projection(self) -> Projection:
        solved = self.assignment.success if self.assignment is not None else ()
        return Projection(
            self.klass, self.joined, self.submitted, self.activity, self.predict, self.earlier, self.change, solved
        )


# ONE query: the class (checked against the teacher's token hash, or the projector's key), its current
# activity, every student (removed ones too: listed apart), their submissions to that activity and (peer
# instruction) their prediction of the round before the current one.
_DASHBOARD_QUERY = f"""
SELECT {CLASS_COLUMNS}, c.teacher_hash,
       {ACTIVITY_COLUMNS},
       s.id AS student_id, s.name AS student_name, s.removed_at, s.approved, s.joined_at AS student_joined_at,
       sub.problem, sub.answer, sub.correct, sub.tries,
       ea.answer AS earlier_answer
FROM classes c
LEFT JOIN activities a ON a.id = c.current_activity
LEFT JOIN students s ON s.class_id = c.id
LEFT JOIN submissions sub ON sub.student_id = s.id AND sub.activity_id = c.current_activity
LEFT JOIN earlier_answers ea ON ea.student_id = s.id AND ea.activity_id = c.current_activity
     AND ea.round = a.round - 1
WHERE c.code = :code
ORDER BY s.joined_at, s.id, sub.problem
"""


def _class_rows(engine: Engine, code: str) -> list:
    code = normalize_code(code)
    with reading(engine) as conn:
        rows = conn.execute(text(_DASHBOARD_QUERY), {"code": code}).all()
    return rows


@dataclass
class _Gathered:
    """The dashboard query's rows, per student id (in join order)."""

    names: dict[int, str] = field(default_factory=dict)
    joined_at: dict[int, float] = field(default_factory=dict)
    removed: set[int] = field(default_factory=set)
    waiting: set[int] = field(default_factory=set)
    subs: dict[int, list] = field(default_factory=dict)  # their submissions to the current activity
    earlier: dict[int, tuple[Fraction, ...]] = field(default_factory=dict)  # their previous round's prediction


def _gather(rows) -> _Gathered:
    found = _Gathered()
    for row in rows:
        if row.student_id is None:
            continue
        found.names[row.student_id] = row.student_name
        found.joined_at[row.student_id] = row.student_joined_at
        if row.removed_at is not None:
            found.removed.add(row.student_id)
        elif not row.approved:
            found.waiting.add(row.student_id)
        bucket = found.subs.setdefault(row.student_id, [])
        if row.problem is not None:
            bucket.append(row)
        if row.earlier_answer is not None:
            found.earlier[row.student_id] = decode_prediction(row.earlier_answer)
    return found


def _rosters(found: _Gathered) -> tuple[tuple[StudentRow, ...], tuple[StudentRow, ...], tuple[StudentRow, ...]]:
    """(the students in the class, the removed ones, the ones waiting), each labelled apart from the others."""
    labels = distinct_labels(list(found.names.values()))
    everyone = [
        StudentRow(sid, found.names[sid], bool(found.subs[sid]), label, sid in found.earlier, found.joined_at[sid])
        for sid, label in zip(found.names, labels)
    ]
    students = tuple(s for s in everyone if s.id not in found.removed and s.id not in found.waiting)
    removed = tuple(s for s in everyone if s.id in found.removed)
    waiting = tuple(s for s in everyone if s.id in found.waiting)
    return students, removed, waiting


def _summaries(activity: ActivityView | None, students, found: _Gathered):
    """(predict, assignment, earlier round's predict, change between the rounds) of the current activity."""
    predict = assignment = earlier_summary = change = None
    if activity is not None and activity.kind == PREDICT:
        subs = found.subs
        current = {s.id: decode_prediction(subs[s.id][0].answer) for s in students if subs[s.id]}
        predict = summarize_predictions(activity.spec, list(current.values()))
        if activity.round > 1:
            earlier = {sid: values for sid, values in found.earlier.items() if sid not in found.removed}
            earlier_summary = summarize_predictions(activity.spec, list(earlier.values()))
            pairs = [(earlier[sid], current[sid]) for sid in current if sid in earlier]
            change = compare_rounds(activity.spec, pairs)
    elif activity is not None:
        per_student = [
            (s.label, {r.problem: Attempt(r.answer, bool(r.correct), r.tries) for r in found.subs[s.id]})
            for s in students
        ]
        assignment = summarize_assignment(activity.spec, per_student)
    return predict, assignment, earlier_summary, change


def _board(rows) -> Dashboard:
    activity = activity_record(rows[0])
    found = _gather(rows)
    students, removed, waiting = _rosters(found)
    predict, assignment, earlier, change = _summaries(activity, students, found)
    return Dashboard(
        class_record(rows[0]), students, activity, predict, assignment, removed, waiting, earlier, change, db.now()
    )


def dashboard(engine: Engine, code: str, teacher_token: str) -> Dashboard:
    rows = _class_rows(engine, code)
    first = rows[0] if rows else None
    try:
        check_teacher_row(first, teacher_token)
    except ClassroomError:
        with reading(engine) as conn:  # a refused link only: was it replaced by New teacher link?
            check_teacher_row(first, teacher_token, conn)
    return _board(rows)


def projection(engine: Engine, code: str, display_key: str) -> Projection:
    """The projector's view of the class (ONE query, as the dashboard): only with the class's display key. One
    message for every refusal (no class, past the 30 days, wrong key), as for teacher links."""
    rows = _class_rows(engine, code)
    first = rows[0] if rows else None
    stored = (first.display_key or "") if first is not None else ""
    if (
        not display_key
        or not stored
        or not secrets.compare_digest(stored, str(display_key))
        or first.created_at < db.now() - KEEP_CLASS_S
    ):
        raise ClassroomError(
            said("This projector link does not open a class: open Projector view from the teacher's dashboard.")
        )
    return _board(rows).projection

