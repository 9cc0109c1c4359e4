"""A live class in the database: create, join, activities, submissions, the dashboard and the CSV export.

Every function takes a SQLAlchemy engine (prepared by :func:`lab.classroom.db.prepare`) and either returns
plain data or raises :class:`ClassroomError` with a message a teacher or student can act on; a refused
action writes nothing. Every query is parameterised. Secrets:

- the teacher token (``secrets.token_urlsafe(24)``, 192 bits) is shown once, in the teacher link; only its
  SHA-256 is stored. Every teacher action needs the class code *and* that token.
- a student id (``secrets.token_urlsafe(16)``, 128 bits) is the private part of the student's link; only its
  SHA-256 is stored. A student reads only their own submissions, and exact answers only after the reveal.
- **New teacher link** (:func:`new_teacher_link`) replaces the teacher token: the old one is refused at once,
  with a message saying it was replaced (the hashes of replaced tokens are kept for that).
- the display key (``secrets.token_urlsafe(16)``) is the projector's: it reads what the class may see on the big
  screen (:func:`projection`: counts, the class's predictions, the answer after the reveal; never a name) and
  can change nothing. It is stored as it is (the dashboard shows its link again), and survives New teacher link.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from fractions import Fraction
from typing import NamedTuple

from sqlalchemy import text
from sqlalchemy.engine import Engine

from lab.classroom import db
from lab.classroom.activities import (
    ASSIGNMENT,
    PREDICT,
    ActivityError,
    check_assignment_answer,
    decode_prediction,
    encode_params,
    encode_prediction,
    parse_prediction,
)
from lab.classroom.dashboards import dashboard
from lab.classroom.db import prepare, reading, writing
from lab.classroom.keys import (
    follow_key,
    join_key,
    join_seed,
    keyed,
    link_seed,
    new_display_key,
    new_join_seed,
    new_student_token,
    token_hash,
)
from lab.classroom.limits import (
    FORGET_WRONG_CODES_S,
    MAX_STUDENTS,
    MAX_WAITING,
    budget_spent,
    check_limits,
    check_wrong_code_wait,
    class_start_limits,
    count_limits,
    count_submission,
    join_limits,
    record_wrong_code,
    spend_wrong_code,
    wrong_codes_from,
)
from lab.classroom.naming import (
    MAX_CLASS_NAME,
    check_name,
    check_text,
    name_key,
    new_class_code,
    normalize_code,
)
from lab.classroom.records import (
    ACTIVITY_COLUMNS,
    CLASS_COLUMNS,
    CODE_LIFETIME_S,
    KEEP_CLASS_S,
    KEEP_STUDY_S,
    ActivityView,
    ClassRow,
    activity_record,
    bump_version,
    class_by_code,
    class_record,
)
from lab.classroom.refusals import ClassroomError, Waiting
from lab.classroom.teacher_link import new_teacher_token, teacher_class
from lab.teaching.exercises import Attempt, Check, ExerciseInputError
from lab.teaching.exports import check_base_url

MAX_ROUNDS = 2  # peer instruction: vote, discuss, vote again


# --- classes ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class NewClass:
    code: str
    teacher_token: str
    name: str


def purge_old(engine: Engine, at: float | None = None) -> None:
    """Delete classes older than 30 days (with their students and answers), stale self-study records,
    wrong-code counts 10 minutes after a browser's last wrong code, and counters whose window ended. Runs when
    a class starts and, from the pages, when a process starts and then hourly (lab.views.classroom_db)."""
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


def create_class(engine: Engine, name: str = "", *, client: str = "", address: str = "") -> NewClass:
    """Start a class. ``client`` (the browser session) and ``address`` bound how many classes one browser and one
    address start (CLASSES_PER_BROWSER, CLASSES_PER_ADDRESS in CLASS_WINDOW_S); only keyed HMACs are stored."""
    prepare(engine)
    cleaned = check_text("Class name", name, MAX_CLASS_NAME)
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
                    "INSERT INTO classes (code, name, teacher_hash, created_at, version, student_count, display_key) "
                    "VALUES (:code, :name, :hash, :at, 1, 0, :display)"
                ),
                {"code": code, "name": cleaned, "hash": token_hash(token), "at": at, "display": new_display_key()},
            )
        return NewClass(code, token, cleaned)
    raise ClassroomError("Could not find a free class code; try again.")  # pragma: no cover (31^6 codes)


def check_join_address(address: str) -> str:
    """An app address typed by the teacher for students: http(s) with a host, nothing else ("" clears it). The
    same rule as the Exercises page's assignment links (one home: lab.teaching.exports.check_base_url)."""
    if not str(address).strip():
        return ""
    try:
        return check_base_url(address)
    except ExerciseInputError as exc:
        raise ClassroomError(f"Address for students: {exc} (e.g. http://192.168.1.20:8501).") from None


def set_join_address(engine: Engine, code: str, teacher_token: str, address: str) -> str:
    """Keep the app address students use (join link and QR code on the dashboard and the projector)."""
    cleaned = check_join_address(address)
    with writing(engine) as conn:
        klass = teacher_class(conn, code, teacher_token)
        conn.execute(
            text("UPDATE classes SET join_address = :a WHERE id = :id"), {"a": cleaned or None, "id": klass.id}
        )
        bump_version(conn, klass.id)  # the projector redraws its QR code
    return cleaned


class ClassVersion(NamedTuple):
    version: int  # bumped by every teacher action
    open: bool
    follow_key: str  # what a student's page shows to read this (see follow_key)
    display_key: str = ""  # the projector's key: it may read the version too
    layout: str = ""  # the student page's structure (page_layout): when it moved, the whole page redraws


def page_layout(activity_id: int | None, round_: int, locked: bool, kind: str, revealed: bool) -> str:
    """What of a student's page the teacher's actions change beyond its live part (the exact answer, the live
    region): the open activity, its round, Lock, and an assignment's reveal (its cards show the solutions). The
    version route says it, so a page knows whether its live part or the whole page has to run again."""
    if activity_id is None:
        return "none"
    return f"{activity_id}.{round_}.{int(locked)}" + (f".{int(revealed)}" if kind != PREDICT else "")


def class_version(engine: Engine, code: str) -> ClassVersion | None:
    """The class-state version and whether the class is open: what a student's page polls. None for an
    unknown code."""
    with reading(engine) as conn:
        row = conn.execute(
            text(
                "SELECT c.version, c.ended_at, c.created_at, c.teacher_hash, c.display_key, c.current_activity, "
                "a.round, a.locked_at, a.kind, a.revealed_at FROM classes c "
                "LEFT JOIN activities a ON a.id = c.current_activity WHERE c.code = :code"
            ),
            {"code": code},
        ).first()
    if row is None:
        return None
    is_open = row.ended_at is None and db.now() - row.created_at < CODE_LIFETIME_S
    layout = page_layout(
        row.current_activity, row.round, row.locked_at is not None, row.kind, row.revealed_at is not None
    )
    return ClassVersion(row.version, is_open, follow_key(link_seed(row)), row.display_key or "", layout)


def open_activity(engine: Engine, code: str, teacher_token: str, kind: str, params: dict) -> int:
    """Open a new activity (the previous one is locked); returns its position (1, 2, ...)."""
    try:
        stored = encode_params(kind, params)
    except ActivityError as exc:
        raise ClassroomError(str(exc)) from None
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
                "INSERT INTO activities (class_id, position, kind, params, opened_at) "
                "VALUES (:cid, :pos, :kind, :params, :at) RETURNING id"
            ),
            {"cid": klass.id, "pos": position, "kind": kind, "params": stored, "at": at},
        ).scalar_one()
        conn.execute(
            text("UPDATE classes SET current_activity = :a WHERE id = :id"), {"a": activity_id, "id": klass.id}
        )
        bump_version(conn, klass.id)
    return position


def _set_current(engine: Engine, code: str, teacher_token: str, column: str, value) -> None:
    assert column in ("revealed_at", "locked_at")
    with writing(engine) as conn:
        klass = teacher_class(conn, code, teacher_token)
        if klass.current_activity is None:
            raise ClassroomError("No activity is open: open one first.")
        conn.execute(
            text(f"UPDATE activities SET {column} = :v WHERE id = :id"), {"v": value, "id": klass.current_activity}
        )
        bump_version(conn, klass.id)


def reveal(engine: Engine, code: str, teacher_token: str) -> None:
    """Show the exact answer of the current activity to the class (submissions stay open until Lock)."""
    _set_current(engine, code, teacher_token, "revealed_at", db.now())


def lock(engine: Engine, code: str, teacher_token: str) -> None:
    _set_current(engine, code, teacher_token, "locked_at", db.now())


def unlock(engine: Engine, code: str, teacher_token: str) -> None:
    _set_current(engine, code, teacher_token, "locked_at", None)


def _current_prediction(conn, klass: ClassRow, action: str):
    """The current activity's row for a peer-instruction action (a prediction activity), or a clear refusal."""
    if klass.current_activity is None:
        raise ClassroomError("No activity is open: open one first.")
    row = conn.execute(
        text("SELECT id, kind, round, revealed_at FROM activities WHERE id = :id"), {"id": klass.current_activity}
    ).one()
    if row.kind != PREDICT:
        raise ClassroomError(f"{action} works on a prediction activity; the open activity is an assignment.")
    return row


def show_responses(engine: Engine, code: str, teacher_token: str) -> None:
    """Put the current round's distribution of predictions on the projector (without the exact answer)."""
    with writing(engine) as conn:
        klass = teacher_class(conn, code, teacher_token)
        row = _current_prediction(conn, klass, "Show responses")
        conn.execute(text("UPDATE activities SET shown_at = :at WHERE id = :id"), {"at": db.now(), "id": row.id})
        bump_version(conn, klass.id)


def vote_again(engine: Engine, code: str, teacher_token: str) -> int:
    """Peer instruction: open the next round of the same question. The round's predictions are kept (as that
    round's) and every student votes again; returns the new round's number."""
    with writing(engine) as conn:
        klass = teacher_class(conn, code, teacher_token)
        row = _current_prediction(conn, klass, "Vote again")
        if row.revealed_at is not None:
            raise ClassroomError(
                "The exact answer is already revealed: a new vote would only copy it. Open another activity."
            )
        if row.round >= MAX_ROUNDS:
            raise ClassroomError(f"This question has had its {MAX_ROUNDS} rounds: reveal the answer, or open another.")
        voted = conn.execute(
            text("SELECT COUNT(*) FROM submissions WHERE activity_id = :a"), {"a": row.id}
        ).scalar_one()
        if not voted:
            raise ClassroomError(f"Nobody has voted in round {row.round} yet: vote again once students have submitted.")
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
            text("UPDATE activities SET round = round + 1, shown_at = NULL, locked_at = NULL WHERE id = :a"),
            {"a": row.id},
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
        raise ClassroomError("That student is not in this class (already removed?).")


def remove_not_submitted(engine: Engine, code: str, teacher_token: str) -> int:
    """Remove every student who has not answered the current activity (e.g. a flood of fake joins)."""
    with reading(engine) as conn:
        klass = teacher_class(conn, code, teacher_token)
        if klass.current_activity is None:
            raise ClassroomError("No activity is open: there is nothing to have submitted yet.")
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


def _take_seat(conn, class_id: int, full: str) -> None:
    """Count one more student in the class, in the same statement that checks the limit (two joins at once
    cannot both take the last seat); ``full`` is the refusal when there is no seat."""
    seat = conn.execute(
        text(
            "UPDATE classes SET student_count = student_count + 1 "
            "WHERE id = :id AND student_count < :max RETURNING student_count"
        ),
        {"id": class_id, "max": MAX_STUDENTS},
    ).first()
    if seat is None:
        raise ClassroomError(full)


def allow_back(engine: Engine, code: str, teacher_token: str, student_id: int) -> None:
    """Let a removed student back in: their link works again (with their answers) and their browser and name may
    join again."""
    with writing(engine) as conn:
        klass = teacher_class(conn, code, teacher_token)
        _take_seat(conn, klass.id, f"The class is full ({MAX_STUDENTS} students): remove someone first.")
        back = conn.execute(
            text(
                "UPDATE students SET removed_at = NULL, approved = 1 "
                "WHERE id = :sid AND class_id = :cid AND removed_at IS NOT NULL RETURNING id"
            ),
            {"sid": int(student_id), "cid": klass.id},
        ).first()
        if back is None:
            raise ClassroomError("That student was not removed from this class.")
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
            seat = conn.execute(
                text(
                    "UPDATE classes SET student_count = student_count + 1 "
                    "WHERE id = :id AND student_count < :max RETURNING student_count"
                ),
                {"id": klass.id, "max": MAX_STUDENTS},
            ).first()
            if seat is None:
                break
            conn.execute(text("UPDATE students SET approved = 1 WHERE id = :sid"), {"sid": sid})
            admitted += 1
        if admitted:
            bump_version(conn, klass.id)
    return admitted


def lock_joins(engine: Engine, code: str, teacher_token: str, locked: bool = True) -> None:
    """Lock the class to new joins (students already in come back through their private links), or open it."""
    with writing(engine) as conn:
        klass = teacher_class(conn, code, teacher_token)
        conn.execute(
            text("UPDATE classes SET joins_locked_at = :at WHERE id = :id"),
            {"at": db.now() if locked else None, "id": klass.id},
        )
        bump_version(conn, klass.id)


def set_expected_size(engine: Engine, code: str, teacher_token: str, size) -> int | None:
    """The class's expected size (1 to MAX_STUDENTS; None or 0: no approval): once that many students are in,
    further joins wait for the teacher's approval on the dashboard instead of taking a seat."""
    try:
        cleaned = int(size) if size not in (None, "") else 0
    except (TypeError, ValueError):
        raise ClassroomError(f"Expected size: {size!r} is not a whole number of students.") from None
    if not 0 <= cleaned <= MAX_STUDENTS:
        raise ClassroomError(f"Expected size: {cleaned} students; type 1 to {MAX_STUDENTS}, or 0 for no approval.")
    with writing(engine) as conn:
        klass = teacher_class(conn, code, teacher_token)
        conn.execute(
            text("UPDATE classes SET expected_size = :n WHERE id = :id"), {"n": cleaned or None, "id": klass.id}
        )
        bump_version(conn, klass.id)
    return cleaned or None


def new_join_link(engine: Engine, code: str, teacher_token: str) -> str:
    """Replace the class's join link key (a QR code that went round): the old link and QR code stop admitting at
    once; returns the new key. Students already in keep their private links."""
    with writing(engine) as conn:
        klass = teacher_class(conn, code, teacher_token)
        seed = new_join_seed()
        conn.execute(text("UPDATE classes SET join_seed = :s WHERE id = :id"), {"s": seed, "id": klass.id})
        bump_version(conn, klass.id)
    return join_key(seed)


# bulk removal: the rules a teacher can pick, in the words the dashboard shows
BULK_RULES = {
    "no-submission": "has submitted nothing in this class",
    "joined-recently": "joined within the last N seconds",
    "duplicate-name": "repeats the name of someone who joined earlier",
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
        raise ClassroomError(f"Bulk removal: {rule!r} is not a rule ({', '.join(BULK_RULES)}).")
    board = dashboard(engine, code, teacher_token)
    if not board.klass.open:
        raise ClassroomError(f"Class {board.klass.code} has ended: nothing in it can change.")
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
    at = db.now()
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
    taken = [r for r in matched if include_submitted or not r.submitted]
    kept = [r for r in matched if r.submitted and not include_submitted]
    return BulkMatch(
        tuple(r.id for r in taken),
        tuple(labels.get(r.id, r.name) for r in taken),
        tuple(labels.get(r.id, r.name) for r in kept),
    )


# --- joining ------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Joined:
    code: str
    student_token: str
    name: str
    waiting: bool = False  # joined beyond the expected size: waits for the teacher's approval


def _no_open_class(code: str) -> ClassroomError:
    # one message for every refusal of a typed code once it was looked up (no class has it, the class ended, is
    # locked, full, its guessing budget spent, a replaced join link, a removed name): nothing tells them apart
    return ClassroomError(
        f"No open class has the code {code}: check the code with your teacher (a code stops working when its "
        "class ends). If the code is right, the class takes no typed codes now (locked, full, or after many wrong "
        "guesses): open the join link or scan the QR code your teacher shows."
    )


@dataclass(frozen=True)
class JoinRequest:
    """Who asks to join, as the store may keep them: keyed HMACs of the browser session and the address, never
    the values themselves."""

    name: str  # checked (check_name)
    session_hash: str  # counts this browser session's wrong codes (also when the page passed no session)
    browser_hash: str | None  # bounds its joins and keeps a removed student's browser out
    address_key: str  # bounds an address's wrong codes and typed joins ("" when unknown)
    link_key: str  # the join link's key, if the join came through it
    at: float


def join_class(
    engine: Engine, code: str, name: str, client: str = "", *, address: str = "", link_key: str = ""
) -> Joined:
    """Join the class with ``code`` as ``name``.

    ``client`` identifies the browser session (the page passes its Streamlit XSRF cookie's token), ``address``
    the client's address (lab.classroom.keys); only keyed HMACs of them are stored. Through the join link
    (``link_key``, see join_key) a join is no guess: it skips every wrong-code limit and the per-address join
    limit, so no one at the same address can keep a classmate out; a key that is not the class's current one
    (New join link) admits nothing. A typed code: after FREE_WRONG_CODES wrong codes from one browser session
    each further try waits (2, 4, ... up to 60 s); an address gets WRONG_CODES_PER_ADDRESS wrong codes an hour;
    a class takes typed codes only while its guessing budget lasts (WRONG_CODE_RISK_BUDGET); typed joins are
    bounded per address (JOINS_PER_ADDRESS a minute). Joins are bounded per browser session either way
    (JOINS_PER_BROWSER in 10 minutes). A locked class admits no one new; beyond its expected size a join waits
    for the teacher's approval; a removed student's browser session and name stay out until the teacher lets
    them back in. Every refusal of a typed code after the lookup says the same (_no_open_class)."""
    prepare(engine)
    at = db.now()
    request = JoinRequest(
        check_name(name), keyed("wrong-codes", client), keyed("browser", client) if client else None,
        keyed("address", address) if address else "", link_key, at,
    )  # fmt: skip
    code = _typed_code(engine, code, request)
    with writing(engine) as conn:
        row = class_by_code(conn, code)
        by_link = _through_join_link(row, link_key)
        joins = _check_join_limits(conn, request, by_link)
        klass = class_record(row) if row is not None else None
        refusal, waiting = _refusal_or_place(conn, klass, code, request, by_link)
        if refusal is None:
            count_limits(conn, joins, at)
            return _seat_student(conn, klass, request, waiting)
    _count_refused_join(engine, request, by_link, wrong_code=klass is None or not klass.open)
    raise refusal


def _typed_code(engine: Engine, code: str, request: JoinRequest) -> str:
    """The typed code, normalised; a malformed code names no class: slowed per browser, not counted as a guess."""
    try:
        return normalize_code(code)
    except ClassroomError:
        with writing(engine) as conn:
            record_wrong_code(conn, request.session_hash, request.at)
        raise


def _through_join_link(row, link_key: str) -> bool:
    """Whether the join came through the class's current join link (so it is no guess)."""
    return bool(
        row is not None and link_key and secrets.compare_digest(join_key(join_seed(row)), str(link_key)[:64])
    )


def _check_join_limits(conn, request: JoinRequest, by_link: bool) -> tuple:
    """Raise RateLimited if this join is over a limit, whatever the code names; returns the limits it counts
    against once it succeeds. A typed code also waits out the browser's wrong-code slowing and the address's
    wrong codes."""
    if not by_link:
        check_wrong_code_wait(conn, request.session_hash, request.at)
        if request.address_key:
            check_limits(conn, [wrong_codes_from(request.address_key)], request.at)
    joins = join_limits(request.browser_hash, request.address_key, by_link)
    check_limits(conn, joins, request.at)
    return joins


def _refusal_or_place(conn, klass, code: str, request: JoinRequest, by_link: bool):
    """(the refusal, False), or (None, whether the student waits for the teacher's approval)."""
    if klass is None or not klass.open:
        return _no_open_class(code), False  # a wrong code: counted after this transaction (_count_refused_join)
    refusal = _admission(conn, klass, request, by_link)
    if refusal is not None:
        return refusal, False
    waiting, refusal = _seat_or_wait(conn, klass, by_link)
    return refusal, waiting


def _seat_student(conn, klass: ClassRow, request: JoinRequest, waiting: bool) -> Joined:
    """Write the student's row (only the hash of their new private id) and say where they are."""
    token = new_student_token()
    conn.execute(
        text(
            "INSERT INTO students (class_id, token_hash, name, joined_at, rate_start, rate_count, "
            "browser_hash, approved) VALUES (:cid, :hash, :name, :at, 0, 0, :browser, :approved)"
        ),
        {
            "cid": klass.id, "hash": token_hash(token), "name": request.name, "at": request.at,
            "browser": request.browser_hash, "approved": 0 if waiting else 1,
        },  # fmt: skip
    )
    if waiting:
        bump_version(conn, klass.id)  # the dashboard lists who waits
    return Joined(klass.code, token, request.name, waiting)


def _count_refused_join(engine: Engine, request: JoinRequest, by_link: bool, *, wrong_code: bool) -> None:
    """Count a refused join: every refused typed code is slowed the same; a code no open class has also spends
    the classes' guessing budget and the address's wrong codes."""
    with writing(engine) as conn:
        if not by_link:
            record_wrong_code(conn, request.session_hash, request.at)
        if wrong_code:
            spend_wrong_code(conn, request.at)
            if request.address_key:
                count_limits(conn, [wrong_codes_from(request.address_key)], request.at)


def _seat_or_wait(conn, klass: ClassRow, by_link: bool) -> tuple[bool, ClassroomError | None]:
    """A seat for a join (False, None); beyond the expected size a place in the queue for the teacher's approval
    (True, None); or the refusal (the class or the queue is full: said through the join link only)."""
    seated = conn.execute(text("SELECT student_count FROM classes WHERE id = :id"), {"id": klass.id}).scalar_one()
    if klass.expected_size is not None and seated >= klass.expected_size:
        queued = conn.execute(
            text("SELECT COUNT(*) FROM students WHERE class_id = :cid AND approved = 0 AND removed_at IS NULL"),
            {"cid": klass.id},
        ).scalar_one()
        if queued < MAX_WAITING:
            return True, None
        full = f"Class {klass.code} has {MAX_WAITING} students waiting for the teacher already: ask your teacher."
        return True, ClassroomError(full) if by_link else _no_open_class(klass.code)
    try:
        _take_seat(conn, klass.id, f"Class {klass.code} is full ({MAX_STUDENTS} students): ask your teacher.")
    except ClassroomError as exc:
        return False, exc if by_link else _no_open_class(klass.code)
    return False, None


def _admission(conn, klass: ClassRow, request: JoinRequest, by_link: bool) -> ClassroomError | None:
    """Why an open class refuses this join (None: it may take it). Through the join link the reason is said; for a
    typed code it is the one refusal of every typed code (_no_open_class), except to a removed student's own
    browser session, which knows the class already."""
    if (
        request.browser_hash
        and conn.execute(
            text("SELECT 1 FROM students WHERE class_id = :cid AND browser_hash = :b AND removed_at IS NOT NULL"),
            {"cid": klass.id, "b": request.browser_hash},
        ).first()
    ):
        return ClassroomError(
            "Your teacher removed you from this class: ask your teacher to let you back in, then join again."
        )
    if request.link_key and not by_link:
        return _no_open_class(klass.code)  # a replaced join link (or a key of another class) admits nothing
    if not by_link and budget_spent(conn, klass.created_at, request.at):
        return _no_open_class(klass.code)
    removed_names = conn.execute(
        text("SELECT name FROM students WHERE class_id = :cid AND removed_at IS NOT NULL"), {"cid": klass.id}
    ).scalars()
    if name_key(request.name) in {name_key(n) for n in removed_names}:
        removed = f"Your teacher removed a student named {request.name} from this class: ask your teacher to let you "
        return ClassroomError(removed + "back in.") if by_link else _no_open_class(klass.code)
    if klass.joins_locked:
        return (
            ClassroomError(
                f"Class {klass.code} is locked by your teacher: no one new can join. Students already in come back "
                "through their own private links."
            )
            if by_link
            else _no_open_class(klass.code)
        )
    return None


# --- the student's side ---------------------------------------------------------------------------


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


_STUDENT_QUERY = f"""
SELECT s.id AS student_id, s.name AS student_name, s.removed_at, s.approved, {CLASS_COLUMNS}, c.teacher_hash,
       {ACTIVITY_COLUMNS}
FROM students s
JOIN classes c ON c.id = s.class_id
LEFT JOIN activities a ON a.id = c.current_activity
WHERE s.token_hash = :hash
"""


def _student(conn, code: str, student_token: str, *, for_write: bool = True):
    code = normalize_code(code)
    row = conn.execute(text(_STUDENT_QUERY), {"hash": token_hash(student_token or "")}).first()
    if row is None:
        raise ClassroomError("This student link is not valid: join the class again with its code and your name.")
    if row.code != code:
        raise ClassroomError(f"This student link belongs to another class, not {code}: use the link you joined with.")
    if row.removed_at is not None:
        raise ClassroomError("Your teacher removed you from this class.")
    if not row.approved:
        raise Waiting(
            f"You are waiting to be let in: class {row.code} has as many students as your teacher expected, so "
            "your teacher lets each new student in from the dashboard. This page opens by itself when you are in."
        )
    klass = class_record(row)
    if klass.created_at < db.now() - KEEP_CLASS_S:
        raise ClassroomError("This student link is not valid: join the class again with its code and your name.")
    if for_write and not klass.open:
        raise ClassroomError(f"Class {code} has ended: nothing can change now; thank you for taking part.")
    activity = activity_record(row)
    return row, klass, activity


def student_state(engine: Engine, code: str, student_token: str) -> StudentState:
    """What the student's page shows: the current activity, their own saved answers, and the exact answer
    only once the teacher revealed it."""
    with reading(engine) as conn:
        row, klass, activity = _student(conn, code, student_token, for_write=False)
        subs = []
        before = None
        if activity is not None:
            subs = conn.execute(
                text(
                    "SELECT problem, answer, correct, tries, updated_at FROM submissions "
                    "WHERE activity_id = :a AND student_id = :s ORDER BY problem"
                ),
                {"a": activity.id, "s": row.student_id},
            ).all()
            if activity.round > 1:
                before = conn.execute(
                    text(
                        "SELECT answer FROM earlier_answers WHERE activity_id = :a AND student_id = :s AND round = :r"
                    ),
                    {"a": activity.id, "s": row.student_id, "r": activity.round - 1},
                ).first()
    prediction = saved_at = exact = earlier = None
    if before is not None:
        earlier = decode_prediction(before.answer)
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
        follow_key(link_seed(row)),
        klass.open,
        earlier,
    )


def _open_activity_for(
    activity: ActivityView | None, activity_id: int, kind: str, round_number: int | None = None
) -> ActivityView:
    if activity is None or activity.id != activity_id:
        raise ClassroomError("Your teacher has moved on to another activity: this answer was not saved.")
    if round_number is not None and activity.round != round_number:
        raise ClassroomError(
            f"Your teacher opened round {activity.round} of this question: this answer was not saved. Vote again."
        )
    if activity.kind != kind:
        raise ClassroomError("This answer does not fit the current activity: it was not saved.")
    if activity.locked:
        raise ClassroomError("Your teacher has locked this activity: answers can no longer change.")
    return activity


@dataclass(frozen=True)
class Saved:
    updated_at: float
    revisions: int


def submit_prediction(
    engine: Engine, code: str, student_token: str, activity_id: int, values, round_number: int | None = None
) -> Saved:
    """Save (or revise) the student's prediction for the open activity (for its round ``round_number``, the one
    the student's page showed, when given); returns once committed."""
    at = db.now()
    with writing(engine) as conn:
        row, _klass, activity = _student(conn, code, student_token)
        activity = _open_activity_for(activity, activity_id, PREDICT, round_number)
        try:
            parsed = parse_prediction(activity.spec, values)
        except ActivityError as exc:
            raise ClassroomError(str(exc)) from None
        count_submission(conn, row.student_id, at)
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
    at = db.now()
    with writing(engine) as conn:
        row, _klass, activity = _student(conn, code, student_token)
        activity = _open_activity_for(activity, activity_id, ASSIGNMENT)
        problems = activity.spec.problems
        if not 1 <= int(problem_number) <= len(problems):
            raise ClassroomError(f"Problem {problem_number} is not part of this assignment (1 to {len(problems)}).")
        problem = problems[int(problem_number) - 1]
        count_submission(conn, row.student_id, at)
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
