"""A class's life as its teacher runs it: start, activities, rounds, end, purge.

Starting a class, its activities (open, reveal, lock, show responses, vote again, next, the countdown), ending
it, and deleting what is past its lifetime.
"""

from __future__ import annotations

from dataclasses import dataclass

from sqlalchemy import text
from sqlalchemy.engine import Engine

from lab.classroom import db
from lab.classroom.activities import PREDICT, ActivityError, encode_params
from lab.classroom.db import prepare, reading, writing
from lab.classroom.keys import new_display_key, token_hash
from lab.classroom.limits import FORGET_WRONG_CODES_S, check_limits, class_start_limits, count_limits
from lab.classroom.naming import (
    ANONYMOUS_LABEL,
    CLASS_NAME_LABEL,
    MAX_CLASS_NAME,
    check_text,
    check_yes_no,
    new_class_code,
)
from lab.classroom.records import KEEP_CLASS_S, KEEP_STUDY_S, ClassRow, bump_version
from lab.classroom.refusals import ClassroomError
from lab.classroom.teacher_link import new_teacher_token, teacher_class
from lab.core.errors import said, said_of

MAX_ROUNDS = 2  # peer instruction: vote, discuss, vote again
TIMER_CHOICES = (30, 60, 120)  # the countdown's lengths a teacher can choose for each round (or none)
ADD_TIME_S = 30  # what "Add 30 s" gives a running (or ended) countdown
MAX_COUNTDOWN_S = 600  # no countdown runs longer from now


@dataclass(frozen=True)
class NewClass:
    code: str
    teacher_token: str
    name: str


def purge_old(engine: Engine, at: float | None = None) -> None:
    """Delete classes older than 30 days (with their students and answers), stale self-study records,
    wrong-code counts 10 minutes after a browser's last wrong code, and counters whose window ended. Runs when
    a class starts and, from the pages, when a process starts and then hourly (lab.views.live_class.database)."""
    at = db.now() if at is None else at
    with writing(engine) as conn:
        old = {"cut": at - KEEP_CLASS_S}
        old_class = "SELECT id FROM classes WHERE created_at < :cut"
        old_activity = f"SELECT id FROM activities WHERE class_id IN ({old_class})"
        conn.execute(text(f"DELETE FROM submissions WHERE activity_id IN ({old_activity})"), old)
        conn.execute(text(f"DELETE FROM earlier_answers WHERE activity_id IN ({old_activity})"), old)
        conn.execute(text(f"DELETE FROM retired_teacher_links WHERE class_id IN ({old_class})"), old)
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
        conn.execute(text("DELETE FROM rate_counters WHERE window_end <= :at"), {"at": at})


def create_class(
    engine: Engine, name: str = "", *, client: str = "", address: str = "", anonymous: bool = False,
    plan: str | None = None,
) -> NewClass:
    """Start a class. ``client`` (the browser session) and ``address`` bound how many classes one browser and one
    address start (CLASSES_PER_BROWSER, CLASSES_PER_ADDRESS in CLASS_WINDOW_S); only keyed HMACs are stored.
    ``anonymous``: students join without a name (lab.classroom.admission gives each a random one). ``plan``: a
    lesson plan to keep with the class, as lab.classroom.plans.stored_plan writes it (checked there)."""
    check_yes_no(anonymous, ANONYMOUS_LABEL)
    prepare(engine)
    cleaned = check_text(CLASS_NAME_LABEL, name, MAX_CLASS_NAME)
    purge_old(engine)
    token = new_teacher_token()
    limits = class_start_limits(client, address)
    for _ in range(20):
        code = new_class_code()
        with writing(engine) as conn:
            at = db.now()
            check_limits(conn, limits, at)  # raises, inside the transaction: nothing is written
            if conn.execute(text("SELECT 1 FROM classes WHERE code = :code"), {"code": code}).first():
                continue
            count_limits(conn, limits, at)
            conn.execute(
                text(
                    "INSERT INTO classes (code, name, teacher_hash, created_at, version, student_count, display_key, "
                    "anonymous, plan) VALUES (:code, :name, :hash, :at, 1, 0, :display, :anonymous, :plan)"
                ),
                {
                    "code": code, "name": cleaned, "hash": token_hash(token), "at": at, "display": new_display_key(),
                    "anonymous": int(anonymous), "plan": plan,
                },  # fmt: skip
            )
        return NewClass(code, token, cleaned)
    raise ClassroomError(said("Could not find a free class code; try again."))  # pragma: no cover (31^6 codes)


def next_class(engine: Engine, code: str, teacher_token: str, *, client: str = "", address: str = "") -> NewClass:
    """The next lecture's class: a new class (a new code, a new teacher link) with this one's name, lesson plan and
    who-may-join settings (anonymous joining, the expected size); no students, no answers. Also from a class that
    has ended. Bounded like create_class."""
    with reading(engine) as conn:
        klass = teacher_class(conn, code, teacher_token, must_be_open=False)
        kept = conn.execute(
            text("SELECT anonymous, plan, expected_size FROM classes WHERE id = :id"), {"id": klass.id}
        ).one()
    new = create_class(
        engine, klass.name, client=client, address=address, anonymous=bool(kept.anonymous), plan=kept.plan
    )
    if kept.expected_size is not None:
        with writing(engine) as conn:
            conn.execute(
                text("UPDATE classes SET expected_size = :n WHERE code = :code"),
                {"n": kept.expected_size, "code": new.code},
            )
    return new


def open_activity(
    engine: Engine, code: str, teacher_token: str, kind: str, params: dict, timer_s: int | None = None
) -> int:
    """Open a new activity (the previous one is locked); returns its position (1, 2, ...). ``timer_s``: each of
    its rounds has a countdown that long (one of TIMER_CHOICES), which locks the vote when it ends."""
    try:
        stored = encode_params(kind, params)
    except ActivityError as exc:
        raise ClassroomError(said_of(exc)) from None
    timer_s = check_timer(timer_s)
    with writing(engine) as conn:
        klass = teacher_class(conn, code, teacher_token)
        at = db.now()
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
                "INSERT INTO activities (class_id, position, kind, params, opened_at, timer_s, closes_at) "
                "VALUES (:cid, :pos, :kind, :params, :at, :timer, :closes) RETURNING id"
            ),
            {
                "cid": klass.id, "pos": position, "kind": kind, "params": stored, "at": at, "timer": timer_s,
                "closes": at + timer_s if timer_s else None,
            },  # fmt: skip
        ).scalar_one()
        conn.execute(
            text("UPDATE classes SET current_activity = :a WHERE id = :id"), {"a": activity_id, "id": klass.id}
        )
        bump_version(conn, klass.id)
    return position


def _set_current(engine: Engine, code: str, teacher_token: str, column: str, value, **also) -> None:
    assert column in ("revealed_at", "locked_at") and set(also) <= {"closes_at"}
    sets = ", ".join([f"{column} = :v", *(f"{name} = :{name}" for name in also)])
    with writing(engine) as conn:
        klass = teacher_class(conn, code, teacher_token)
        if klass.current_activity is None:
            raise ClassroomError(said("No activity is open: open one first."))
        conn.execute(
            text(f"UPDATE activities SET {sets} WHERE id = :id"), {"v": value, "id": klass.current_activity, **also}
        )
        bump_version(conn, klass.id)


def reveal(engine: Engine, code: str, teacher_token: str) -> None:
    """Show the exact answer of the current activity to the class; it closes the activity: no answer is saved after
    it (lab.classroom.answers refuses them by name)."""
    _set_current(engine, code, teacher_token, "revealed_at", db.now())


def lock(engine: Engine, code: str, teacher_token: str) -> None:
    """Lock the current activity: no answer changes (a running countdown stops)."""
    _set_current(engine, code, teacher_token, "locked_at", db.now(), closes_at=None)


def unlock(engine: Engine, code: str, teacher_token: str) -> None:
    """Open the current activity's answers again, without a countdown (also after one ended)."""
    _set_current(engine, code, teacher_token, "locked_at", None, closes_at=None)


def check_timer(seconds) -> int | None:
    """A countdown's length in seconds: one of TIMER_CHOICES, or None (0, None: no countdown)."""
    if seconds is None or seconds == 0:
        return None
    if isinstance(seconds, bool) or not isinstance(seconds, int) or seconds not in TIMER_CHOICES:
        choices = ", ".join(f"{s} s" for s in TIMER_CHOICES)
        raise ClassroomError(said(
            "Countdown: {value} is not one of the lengths offered ({choices}, off).",
            value=repr(str(seconds)[:20]), choices=choices,
        ))
    return seconds


def add_time(engine: Engine, code: str, teacher_token: str, seconds: int = ADD_TIME_S) -> float:
    """Give the current round's vote ``seconds`` more: added to a running countdown, or a countdown that long from
    now (none running, or the last one ended and locked the vote: it opens again). Returns when the vote closes."""
    if isinstance(seconds, bool) or not isinstance(seconds, int) or not 1 <= seconds <= max(TIMER_CHOICES):
        raise ClassroomError(said(
            "Add time: {value} is not a number of seconds from 1 to {most}.",
            value=repr(str(seconds)[:20]), most=max(TIMER_CHOICES),
        ))
    with writing(engine) as conn:
        klass = teacher_class(conn, code, teacher_token)
        if klass.current_activity is None:
            raise ClassroomError(said("No activity is open: open one first."))
        row = conn.execute(
            text("SELECT revealed_at, locked_at, closes_at FROM activities WHERE id = :id"),
            {"id": klass.current_activity},
        ).one()
        if row.revealed_at is not None:
            raise ClassroomError(said("The answer is revealed: the vote is closed for good. Open another activity."))
        if row.locked_at is not None:
            raise ClassroomError(said("The activity is locked: unlock it first, then start a countdown."))
        at = db.now()
        closes = (row.closes_at if row.closes_at is not None and row.closes_at > at else at) + seconds
        if closes - at > MAX_COUNTDOWN_S:
            raise ClassroomError(said(
                "A countdown runs at most {minutes} minutes: it has enough time left.", minutes=MAX_COUNTDOWN_S // 60
            ))
        conn.execute(
            text("UPDATE activities SET closes_at = :c WHERE id = :id"), {"c": closes, "id": klass.current_activity}
        )
        bump_version(conn, klass.id)
    return closes


def stop_countdown(engine: Engine, code: str, teacher_token: str) -> None:
    """No countdown for the current round (the vote stays open until Reveal or Lock)."""
    with writing(engine) as conn:
        klass = teacher_class(conn, code, teacher_token)
        if klass.current_activity is None:
            raise ClassroomError(said("No activity is open: open one first."))
        conn.execute(
            text("UPDATE activities SET closes_at = NULL WHERE id = :id AND locked_at IS NULL AND closes_at > :at"),
            {"id": klass.current_activity, "at": db.now()},
        )
        bump_version(conn, klass.id)


def _current_prediction(conn, klass: ClassRow, action: str):
    """The current activity's row for a peer-instruction action (a prediction activity), or a clear refusal."""
    if klass.current_activity is None:
        raise ClassroomError(said("No activity is open: open one first."))
    row = conn.execute(
        text("SELECT id, kind, round, revealed_at FROM activities WHERE id = :id"), {"id": klass.current_activity}
    ).one()
    if row.kind != PREDICT:
        raise ClassroomError(
            said("{action} works on a prediction activity; the open activity is an assignment.", action=action)
        )
    return row


def show_responses(engine: Engine, code: str, teacher_token: str) -> None:
    """Put the current round's distribution of predictions on the projector (without the exact answer)."""
    with writing(engine) as conn:
        klass = teacher_class(conn, code, teacher_token)
        row = _current_prediction(conn, klass, said("Show responses"))
        conn.execute(text("UPDATE activities SET shown_at = :at WHERE id = :id"), {"at": db.now(), "id": row.id})
        bump_version(conn, klass.id)


def vote_again(engine: Engine, code: str, teacher_token: str) -> int:
    """Peer instruction: open the next round of the same question. The round's predictions are kept (as that
    round's) and every student votes again; returns the new round's number."""
    with writing(engine) as conn:
        klass = teacher_class(conn, code, teacher_token)
        row = _current_prediction(conn, klass, said("Vote again"))
        if row.revealed_at is not None:
            raise ClassroomError(
                said("The exact answer is already revealed: a new vote would only copy it. Open another activity.")
            )
        if row.round >= MAX_ROUNDS:
            raise ClassroomError(said(
                "This question has had its {count} rounds: reveal the answer, or open another.", count=MAX_ROUNDS
            ))
        voted = conn.execute(
            text("SELECT COUNT(*) FROM submissions WHERE activity_id = :a"), {"a": row.id}
        ).scalar_one()
        if not voted:
            raise ClassroomError(said(
                "Nobody has voted in round {round} yet: vote again once students have submitted.", round=row.round
            ))
        conn.execute(
            text(
                "INSERT INTO earlier_answers (activity_id, student_id, round, answer, tries, created_at, updated_at) "
                "SELECT activity_id, student_id, :round, answer, tries, created_at, updated_at FROM submissions "
                "WHERE activity_id = :a"
            ),
            {"a": row.id, "round": row.round},
        )
        conn.execute(text("DELETE FROM submissions WHERE activity_id = :a"), {"a": row.id})
        conn.execute(
            text(
                "UPDATE activities SET round = round + 1, shown_at = NULL, locked_at = NULL, "
                "closes_at = CASE WHEN timer_s IS NULL THEN NULL ELSE :at + timer_s END WHERE id = :a"
            ),
            {"a": row.id, "at": db.now()},
        )
        bump_version(conn, klass.id)
    return row.round + 1


def next_activity(engine: Engine, code: str, teacher_token: str) -> None:
    """Lock the current activity and leave the class waiting for the next one."""
    with writing(engine) as conn:
        klass = teacher_class(conn, code, teacher_token)
        if klass.current_activity is not None:
            conn.execute(
                text("UPDATE activities SET locked_at = :at WHERE id = :id AND locked_at IS NULL"),
                {"at": db.now(), "id": klass.current_activity},
            )
        conn.execute(text("UPDATE classes SET current_activity = NULL WHERE id = :id"), {"id": klass.id})
        bump_version(conn, klass.id)


def end_class(engine: Engine, code: str, teacher_token: str) -> None:
    """End the class: the code stops working for students; the teacher can still download the results."""
    with writing(engine) as conn:
        klass = teacher_class(conn, code, teacher_token, must_be_open=False)
        if klass.ended_at is None:
            conn.execute(text("UPDATE classes SET ended_at = :at WHERE id = :id"), {"at": db.now(), "id": klass.id})
        bump_version(conn, klass.id)
