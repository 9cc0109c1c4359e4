"""What a student's page and the projector poll: the class's version, open or not, the page layout."""

from __future__ import annotations

from typing import NamedTuple

from sqlalchemy import text
from sqlalchemy.engine import Engine

from lab.classroom import db
from lab.classroom.activities import PREDICT
from lab.classroom.db import reading
from lab.classroom.keys import follow_key, link_seed
from lab.classroom.records import CODE_LIFETIME_S, countdown_of


class ClassVersion(NamedTuple):
    version: int  # bumped by every teacher action
    open: bool
    follow_key: str  # what a student's page shows to read this (see follow_key)
    display_key: str = ""  # the projector's key: it may read the version too
    layout: str = ""  # the student page's structure (page_layout): when it moved, the whole page redraws
    revealed: bool = False  # the current activity's answer is revealed (its flags: a page's live part redraws
    shown: bool = False  # from them, shared by the class, when a Reveal or Show responses is all that moved)
    removed: int = 0  # students removed from the class (a removed student's page has to say so)
    round: int = 0  # the current activity's round (0: none open); a new round redraws a page's live part only

    @property
    def live(self) -> str:
        """What of this version a student's page draws (live_key): the version route says it."""
        return live_key(self.layout, self.round, self.revealed, self.removed)


def live_key(layout: str, round_: int, revealed: bool, removed: int) -> str:
    """All a teacher's action can change on a student's page: its layout, the round, the reveal and who was
    removed. When the route's equals the page's, the new version is nothing the page draws (Show responses, the
    projector's address): the page takes it without a run; else its live part (or, with another layout, its
    activity part) runs again."""
    return f"{layout}|{round_}|{int(revealed)}|{removed}"


def page_layout(
    activity_id: int | None, locked: bool, kind: str, revealed: bool, closes_at: float | None = None
) -> str:
    """What of a student's page the teacher's actions change beyond its live part (the exact answer, the round's
    note and what is saved, the live region): the open activity, Lock, and an assignment's reveal (its cards show
    the solutions). Not the round: a new round changes what the live part draws (the boxes keep their values, the
    Submit saves for the round the live part shows), so Vote again costs every page of a class a live part's run,
    not its activity part's (docs/decisions/0002). A countdown's end (``closes_at``, while one runs: Add 30 s moves
it) too. The version route says it, so a page knows which part to run."""
    if activity_id is None:
        return "none"
    layout = f"{activity_id}.{int(locked)}" + (f".{int(revealed)}" if kind != PREDICT else "")
    return layout + (f".t{round(closes_at * 1000)}" if closes_at is not None else "")


def stored_class_version(engine: Engine, code: str) -> ClassVersion | None:
    """The class-state version and whether the class is open: what a student's page polls. None for an
    unknown code."""
    with reading(engine) as conn:
        row = conn.execute(
            text(
                "SELECT c.version, c.ended_at, c.created_at, c.teacher_hash, c.display_key, c.current_activity, "
                "a.round, a.locked_at, a.closes_at, a.kind, a.revealed_at, a.shown_at, "
                "(SELECT COUNT(*) FROM students s WHERE s.class_id = c.id AND s.removed_at IS NOT NULL) AS removed "
                "FROM classes c "
                "LEFT JOIN activities a ON a.id = c.current_activity WHERE c.code = :code"
            ),
            {"code": code},
        ).first()
    if row is None:
        return None
    is_open = row.ended_at is None and db.now() - row.created_at < CODE_LIFETIME_S
    timed_out, closes = countdown_of(row.locked_at, row.revealed_at, row.closes_at)  # as ActivityView's
    layout = page_layout(row.current_activity, row.locked_at is not None or timed_out, row.kind,
                         row.revealed_at is not None, closes)  # fmt: skip
    return ClassVersion(
        row.version,
        is_open,
        follow_key(link_seed(row)),
        row.display_key or "",
        layout,
        row.revealed_at is not None,
        row.shown_at is not None,
        row.removed,
        row.round if row.current_activity is not None else 0,
    )
