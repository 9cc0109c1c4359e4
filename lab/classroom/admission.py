"""Joining a class: join_class in named steps, and the teacher's settings for who may join.

The join's steps: the request, the limits, the admission, the seat. The settings: the address for students,
Lock joins, the expected size, New join link.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, replace

from sqlalchemy import text
from sqlalchemy.engine import Engine

from lab.classroom import db
from lab.classroom.db import prepare, writing
from lab.classroom.keys import join_key, join_seed, keyed, new_join_seed, new_student_token, token_hash
from lab.classroom.limits import (
    MAX_STUDENTS,
    MAX_WAITING,
    budget_spent,
    check_limits,
    check_wrong_code_wait,
    count_limits,
    join_limits,
    record_wrong_code,
    spend_wrong_code,
    wrong_codes_from,
)
from lab.classroom.naming import (
    ANONYMOUS_LABEL,
    anonymous_name,
    check_identifier,
    check_name,
    check_yes_no,
    name_key,
    normalize_code,
)
from lab.classroom.records import ClassRow, bump_version, class_by_code, class_record
from lab.classroom.refusals import ClassroomError
from lab.classroom.roster import take_seat
from lab.classroom.teacher_link import teacher_class
from lab.core.errors import said, said_of
from lab.teaching.exercises import ExerciseInputError
from lab.teaching.exports import check_base_url

# --- the join ----------------------------------------------------------------------------------------------


@dataclass(frozen=True)
class Joined:
    code: str
    student_token: str
    name: str
    waiting: bool = False  # joined beyond the expected size: waits for the teacher's approval


def _no_open_class(code: str) -> ClassroomError:
    # one message for every refusal of a typed code once it was looked up (no class has it, the class ended, is
    # locked, full, its guessing budget spent, a replaced join link, a removed name): nothing tells them apart
    return ClassroomError(said(
        "No open class has the code {code}: check the code with your teacher (a code stops working when its "
        "class ends). If the code is right, the class takes no typed codes now (locked, full, or after many wrong "
        "guesses): open the join link or scan the QR code your teacher shows.", code=code,
    ))


@dataclass(frozen=True)
class JoinRequest:
    """Who asks to join, as the store may keep them: keyed HMACs of the browser session and the address, never
    the values themselves."""

    name: str  # checked (check_name); "" when none was typed (an anonymous class gives one)
    identifier: str  # checked (check_identifier): "" when none was given
    session_hash: str  # counts this browser session's wrong codes (also when the page passed no session)
    browser_hash: str | None  # bounds its joins and keeps a removed student's browser out
    address_key: str  # bounds an address's wrong codes and typed joins ("" when unknown)
    link_key: str  # the join link's key, if the join came through it
    at: float


def join_class(
    engine: Engine, code: str, name: str, client: str = "", *, address: str = "", link_key: str = "",
    identifier: str = "",
) -> Joined:
    """Join the class with ``code`` as ``name`` (and the optional ``identifier``, a student number for the results).

    ``client`` identifies the browser session (the page passes its Streamlit XSRF cookie's token), ``address``
    the client's address (lab.classroom.keys); only keyed HMACs of them are stored. Through the join link
    (``link_key``, see join_key) a join is no guess: it skips every wrong-code limit and the class's guessing
    budget; a key that is not the class's current one (New join link) admits nothing. A typed code: after
    FREE_WRONG_CODES wrong codes from one browser session each further try waits (2, 4, ... up to 60 s); an address
    gets WRONG_CODES_PER_ADDRESS wrong codes an hour; a class takes typed codes only while its guessing budget lasts
    (WRONG_CODE_RISK_BUDGET). Joins are bounded per browser session (JOINS_PER_BROWSER in 10 minutes) and per
    address (JOINS_PER_ADDRESS a minute), by code and by link alike: a link must not let one address fill a
    class. A locked class admits no one new; beyond its expected size a join waits for the teacher's approval; a
    removed student's browser session and name (or one that looks alike: naming.name_key) stay out until the
    teacher lets them back in. Every refusal of a typed code after the lookup says the same (_no_open_class)."""
    prepare(engine)
    at = db.now()
    typed_name = str(name or "")
    request = JoinRequest(
        check_name(typed_name) if typed_name.strip() else "", check_identifier(identifier),
        keyed("wrong-codes", client),
        keyed("browser", client) if client else None,
        keyed("address", address) if address else "", link_key, at,
    )  # fmt: skip
    code = _typed_code(engine, code, request)
    with writing(engine) as conn:
        row = class_by_code(conn, code)
        anonymous = row is not None and bool(row.anonymous)
        if not request.name and not anonymous:
            check_name("")  # raises (the same for every class that asks names, and for no class at all)
        if anonymous:  # a name of the store's choosing; one typed is not kept
            taken = conn.execute(text("SELECT name FROM students WHERE class_id = :cid"), {"cid": row.id}).scalars()
            request = replace(request, name=anonymous_name(taken))
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
            "INSERT INTO students (class_id, token_hash, name, identifier, joined_at, rate_start, rate_count, "
            "browser_hash, approved) VALUES (:cid, :hash, :name, :identifier, :at, 0, 0, :browser, :approved)"
        ),
        {
            "cid": klass.id, "hash": token_hash(token), "name": request.name, "identifier": request.identifier,
            "at": request.at,
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
        full = said(
            "Class {code} has {count} students waiting for the teacher already: ask your teacher.",
            code=klass.code, count=MAX_WAITING,
        )
        return True, ClassroomError(full) if by_link else _no_open_class(klass.code)
    if not take_seat(conn, klass.id):
        full = ClassroomError(
            said("Class {code} is full ({count} students): ask your teacher.", code=klass.code, count=MAX_STUDENTS)
        )
        return False, full if by_link else _no_open_class(klass.code)
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
            said("Your teacher removed you from this class: ask your teacher to let you back in, then join again.")
        )
    if request.link_key and not by_link:
        return _no_open_class(klass.code)  # a replaced join link (or a key of another class) admits nothing
    if not by_link and budget_spent(conn, klass.created_at, request.at):
        return _no_open_class(klass.code)
    removed_names = conn.execute(
        text("SELECT name FROM students WHERE class_id = :cid AND removed_at IS NOT NULL"), {"cid": klass.id}
    ).scalars()
    if name_key(request.name) in {name_key(n) for n in removed_names}:
        removed = said(
            "Your teacher removed a student named {name} from this class: ask your teacher to let you back in.",
            name=request.name,
        )
        return ClassroomError(removed) if by_link else _no_open_class(klass.code)
    if klass.joins_locked:
        return (
            ClassroomError(said(
                "Class {code} is locked by your teacher: no one new can join. Students already in come back "
                "through their own private links.", code=klass.code,
            ))
            if by_link
            else _no_open_class(klass.code)
        )
    return None


# --- the teacher's settings for who may join ------------------------------------------------------------


def check_join_address(address: str) -> str:
    """An app address typed by the teacher for students: http(s) with a host, nothing else ("" clears it). The
    same rule as the Exercises page's assignment links (one home: lab.teaching.exports.check_base_url)."""
    if not str(address).strip():
        return ""
    try:
        return check_base_url(address)
    except ExerciseInputError as exc:
        raise ClassroomError(said(
            "Address for students: {problem} (e.g. {example}).", problem=said_of(exc), example="http://192.168.1.20:8501"
        )) from None


def joins_without_names(engine: Engine, code: str, link_key: str) -> bool:
    """Whether the class of a join link (``code`` and its current key) takes students without names. False for
    anything else, an unknown code or a wrong key included: the page that asks is no way to learn of a class."""
    try:
        code = normalize_code(code)
    except ClassroomError:
        return False
    with db.reading(engine) as conn:
        row = class_by_code(conn, code)
    return bool(_through_join_link(row, link_key) and row.anonymous)


def set_anonymous(engine: Engine, code: str, teacher_token: str, anonymous: bool = True) -> None:
    """Whether students join without a name from now on (each gets a random one, shown to them and to the teacher);
    students already in keep theirs."""
    check_yes_no(anonymous, ANONYMOUS_LABEL)
    with writing(engine) as conn:
        klass = teacher_class(conn, code, teacher_token)
        conn.execute(text("UPDATE classes SET anonymous = :a WHERE id = :id"), {"a": int(anonymous), "id": klass.id})
        bump_version(conn, klass.id)


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
        raise ClassroomError(
            said("Expected size: {value} is not a whole number of students.", value=repr(size))
        ) from None
    if not 0 <= cleaned <= MAX_STUDENTS:
        raise ClassroomError(said(
            "Expected size: {count} students; type 1 to {most}, or 0 for no approval.", count=cleaned, most=MAX_STUDENTS
        ))
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
