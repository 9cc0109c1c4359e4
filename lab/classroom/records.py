"""The transaction layer's shared reads: class and activity records, a class by code, the version bump.

The columns every query selects and the row -> record conversions, the lifetimes, and the bump every change
makes (the students' pages and the projector redraw on it).
"""

from __future__ import annotations

from dataclasses import dataclass
from datetime import UTC, datetime

from sqlalchemy import text

from lab.classroom import db
from lab.classroom.activities import AssignmentSpec, PredictSpec, spec_of
from lab.classroom.keys import join_key, join_seed

CODE_LIFETIME_S = 24 * 3600  # a code stops admitting students a day after the class started
KEEP_CLASS_S = 30 * 24 * 3600  # a class and its results are deleted 30 days after it started
KEEP_STUDY_S = 180 * 24 * 3600  # self-study attempts: 180 days after their last change


def utc_text(ts: float | None) -> str:
    """A stored time as the CSV and the refusals write it (UTC), or "" for none."""
    return "" if ts is None else datetime.fromtimestamp(ts, UTC).strftime("%Y-%m-%d %H:%M:%S UTC")


@dataclass(frozen=True)
class ClassRow:
    id: int
    code: str
    name: str
    created_at: float
    ended_at: float | None
    current_activity: int | None
    version: int
    join_key: str = ""  # the key of the class's join link (join_key()); only where the teacher's row was read
    display_key: str = ""  # the projector's key (only teacher and projector queries read it)
    join_address: str = ""  # the app address for students typed on the dashboard ("" when none)
    joins_locked: bool = False  # the teacher locked the class to new joins
    expected_size: int | None = None  # beyond it, joins wait for the teacher's approval (None: no approval)
    anonymous: bool = False  # students join without a name: each gets a random one (naming.anonymous_name)

    @property
    def open(self) -> bool:
        return self.ended_at is None and db.now() - self.created_at < CODE_LIFETIME_S


def class_record(row) -> ClassRow:
    teacher_hash = row._mapping.get("teacher_hash")
    return ClassRow(
        row.id,
        row.code,
        row.name,
        row.created_at,
        row.ended_at,
        row.current_activity,
        row.version,
        join_key(join_seed(row)) if teacher_hash else "",
        row.display_key or "",
        row.join_address or "",
        row.joins_locked_at is not None,
        row.expected_size,
        bool(row._mapping.get("anonymous")),
    )


def countdown_of(locked_at: float | None, revealed_at: float | None, closes_at: float | None):
    """An activity's countdown, the one rule for every reader: (whether it ended before any Lock, so the vote is
    locked by it; when it ends as a screen shows it, None once the vote is locked or the answer revealed)."""
    timed_out = locked_at is None and closes_at is not None and closes_at <= db.now()
    return timed_out, closes_at if locked_at is None and revealed_at is None else None


def activity_record(row) -> ActivityView | None:
    """The class's current activity from a joined row (None when the class has none open)."""
    if row.activity_id is None:
        return None
    spec = spec_of(row.kind, row.params)
    timed_out, closes_at = countdown_of(row.locked_at, row.revealed_at, row._mapping.get("closes_at"))
    return ActivityView(
        row.activity_id,
        row.position,
        row.kind,
        spec,
        row.revealed_at is not None,
        row.locked_at is not None or timed_out,
        row.round,
        row.shown_at is not None,
        closes_at,
        row._mapping.get("timer_s") or 0,
        timed_out,
    )


CLASS_COLUMNS = (
    "c.id, c.code, c.name, c.created_at, c.ended_at, c.current_activity, c.version, c.display_key, c.join_address, "
    "c.joins_locked_at, c.expected_size, c.join_seed, c.anonymous"
)


ACTIVITY_COLUMNS = (
    "a.id AS activity_id, a.position, a.kind, a.params, a.revealed_at, a.locked_at, a.round, a.shown_at, "
    "a.closes_at, a.timer_s"
)


def bump_version(conn, class_id: int) -> None:
    conn.execute(text("UPDATE classes SET version = version + 1 WHERE id = :id"), {"id": class_id})


@dataclass(frozen=True)
class ActivityView:
    id: int
    position: int
    kind: str
    spec: PredictSpec | AssignmentSpec
    revealed: bool
    locked: bool
    round: int = 1  # peer instruction: the current vote (1, then 2 after Vote again)
    shown: bool = False  # the teacher showed this round's responses on the projector
    closes_at: float | None = None  # when the round's countdown locks the vote (None: no countdown running)
    timer_s: int = 0  # the countdown's length for each round (0: none)
    timed_out: bool = False  # locked because the countdown ended (``locked`` is then true too)

    def seconds_left(self) -> float | None:
        """Seconds until the countdown locks the vote (0 once it has), or None when no countdown runs."""
        if self.closes_at is None:
            return None
        return max(0.0, self.closes_at - db.now())


def class_by_code(conn, code: str):
    """The class's row with CLASS_COLUMNS and its teacher-token hash (None: no class has the code)."""
    return conn.execute(
        text(f"SELECT {CLASS_COLUMNS}, c.teacher_hash FROM classes c WHERE c.code = :code"), {"code": code}
    ).first()
