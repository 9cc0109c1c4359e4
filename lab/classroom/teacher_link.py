"""The teacher link: the teacher token drawn, checked against its stored hash, and replaced.

Every teacher action opens its class through teacher_class; only the token's SHA-256 is stored; New teacher
link keeps the replaced hashes, so an old link is told it was replaced.
"""

from __future__ import annotations

import secrets

from sqlalchemy import text
from sqlalchemy.engine import Engine

from lab.classroom import db
from lab.classroom.db import reading, writing
from lab.classroom.keys import token_hash
from lab.classroom.naming import normalize_code
from lab.classroom.records import KEEP_CLASS_S, ClassRow, bump_version, class_by_code, class_record, utc_text
from lab.classroom.refusals import ClassroomError
from lab.core.errors import said


def new_teacher_token() -> str:
    """A class's teacher token (192 bits): shown once, in the teacher link; only its token_hash is stored."""
    return secrets.token_urlsafe(24)


def replaced_teacher_link(conn, row, teacher_token: str) -> ClassroomError | None:
    """The refusal of a teacher link that New teacher link replaced, saying so (only its holder can present a
    retired token, so it tells a guesser nothing); None for any other link."""
    retired = conn.execute(
        text("SELECT retired_at FROM retired_teacher_links WHERE class_id = :id AND token_hash = :hash"),
        {"id": row.id, "hash": token_hash(teacher_token)},
    ).first()
    if retired is None:
        return None
    return ClassroomError(said(
        "This teacher link of class {code} was replaced by a new one at {time} (New teacher link): it no longer "
        "opens the dashboard. Use the newest teacher link.", code=row.code, time=utc_text(retired.retired_at),
    ))


def check_teacher_row(row, teacher_token: str, conn=None) -> None:
    """Refuse a teacher link whose class does not exist (or is past the 30 days), or whose token is not the
    class's: one message for all, so that teacher links tell nothing about which codes exist; except a link
    replaced by New teacher link (looked up with ``conn``), which is told so."""
    hash_ = token_hash(teacher_token or "")
    stored = row.teacher_hash if row is not None else "0" * len(hash_)
    if (
        not secrets.compare_digest(stored, hash_)
        or not teacher_token
        or row is None
        or row.created_at < db.now() - KEEP_CLASS_S
    ):
        if conn is not None and row is not None and teacher_token and row.created_at >= db.now() - KEEP_CLASS_S:
            replaced = replaced_teacher_link(conn, row, teacher_token)
            if replaced is not None:
                raise replaced
        raise ClassroomError(said(
            "This teacher link does not open a class: only the private link shown when the class was started "
            "opens its dashboard, and a class is deleted 30 days after it started."
        ))


def teacher_class(conn, code: str, teacher_token: str, *, must_be_open: bool = True) -> ClassRow:
    """The class of a teacher action, inside its transaction ``conn``: refused unless ``teacher_token`` is its
    teacher's, and (``must_be_open``) unless it is still running."""
    code = normalize_code(code)
    row = class_by_code(conn, code)
    check_teacher_row(row, teacher_token, conn)
    klass = class_record(row)
    if must_be_open and not klass.open:
        raise ClassroomError(
            said("Class {code} has ended: its results can still be downloaded, nothing can change.", code=code)
        )
    return klass


def check_teacher(engine: Engine, code: str, teacher_token: str) -> ClassRow:
    """The class, if ``teacher_token`` is its teacher's (raises otherwise); ended classes are returned too."""
    with reading(engine) as conn:
        return teacher_class(conn, code, teacher_token, must_be_open=False)


def new_teacher_link(engine: Engine, code: str, teacher_token: str) -> str:
    """Replace the teacher token (a link that leaked): returns the new one. The old link is refused from now
    on; the class, its students, its answers and its projector link stay as they are."""
    token = new_teacher_token()
    with writing(engine) as conn:
        klass = teacher_class(conn, code, teacher_token, must_be_open=False)
        conn.execute(
            text("INSERT INTO retired_teacher_links (class_id, token_hash, retired_at) VALUES (:id, :hash, :at)"),
            {"id": klass.id, "hash": token_hash(teacher_token), "at": db.now()},
        )
        conn.execute(
            text("UPDATE classes SET teacher_hash = :hash WHERE id = :id"), {"hash": token_hash(token), "id": klass.id}
        )
        bump_version(conn, klass.id)  # student pages read their (new) follow key again
    return token
