"""Self-study without a class: the Exercises page's attempts kept under a private resume id.

The id (``secrets.token_urlsafe(16)``) goes into the page's link; only its SHA-256 is stored. Attempts are
stored per assignment (seed and level) and problem number, exactly as the Exercises page keeps them
(:class:`lab.teaching.exercises.Attempt`), and are deleted 180 days after their last change.
"""

from __future__ import annotations

import re
import secrets

from sqlalchemy import text
from sqlalchemy.engine import Engine

from lab.classroom.db import now, prepare, reading, writing
from lab.classroom.keys import token_hash
from lab.classroom.refusals import ClassroomError
from lab.teaching.exercises import Attempt

_TOKEN = re.compile(r"[A-Za-z0-9_-]{16,64}")


def new_study(engine: Engine) -> str:
    """A new resume id (store it in the link: it is the only way back)."""
    prepare(engine)
    token = secrets.token_urlsafe(16)
    at = now()
    with writing(engine) as conn:
        conn.execute(
            text("INSERT INTO studies (token_hash, created_at, updated_at) VALUES (:h, :at, :at)"),
            {"h": token_hash(token), "at": at},
        )
    return token


def _study_id(conn, token: str) -> int:
    if not _TOKEN.fullmatch(str(token or "")):
        raise ClassroomError("This resume link is not valid: the id in it is incomplete or mistyped.")
    row = conn.execute(text("SELECT id FROM studies WHERE token_hash = :h"), {"h": token_hash(token)}).first()
    if row is None:
        raise ClassroomError(
            "No saved answers belong to this resume link (answers are deleted 180 days after their last change)."
        )
    return row.id


def load_attempts(engine: Engine, token: str, assignment: str) -> dict[int, Attempt]:
    prepare(engine)
    with reading(engine) as conn:
        study = _study_id(conn, token)
        rows = conn.execute(
            text(
                "SELECT problem, answer, correct, tries, hints_used FROM study_attempts "
                "WHERE study_id = :s AND assignment = :a"
            ),
            {"s": study, "a": assignment},
        ).all()
    return {r.problem: Attempt(r.answer, bool(r.correct), r.tries, r.hints_used) for r in rows}


def save_attempt(engine: Engine, token: str, assignment: str, problem: int, attempt: Attempt) -> None:
    at = now()
    with writing(engine) as conn:
        study = _study_id(conn, token)
        conn.execute(
            text(
                "INSERT INTO study_attempts (study_id, assignment, problem, answer, correct, tries, hints_used, "
                "updated_at) VALUES (:s, :a, :p, :answer, :correct, :tries, :hints, :at) "
                "ON CONFLICT (study_id, assignment, problem) DO UPDATE SET answer = excluded.answer, "
                "correct = excluded.correct, tries = excluded.tries, hints_used = excluded.hints_used, "
                "updated_at = excluded.updated_at"
            ),
            {
                "s": study,
                "a": str(assignment),
                "p": int(problem),
                "answer": attempt.answer[:200],
                "correct": int(attempt.correct),
                "tries": attempt.tries,
                "hints": attempt.hints_used,
                "at": at,
            },
        )
        conn.execute(text("UPDATE studies SET updated_at = :at WHERE id = :s"), {"at": at, "s": study})
