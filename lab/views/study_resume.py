"""Exercises self-study that survives reloads and restarts: a private resume id in the page's link
(``resume=...``), the attempts stored through lab.classroom.study (the classroom database)."""

from __future__ import annotations

import streamlit as st

from lab.classroom import study
from lab.classroom.store import ClassroomError
from lab.teaching.exercises import Attempt
from lab.views.classroom_db import database_down, engine

DATABASE_DOWN = (
    "the class database cannot be reached right now, so your attempts are not being saved under this link; "
    "they stay on this page, and saving starts again by itself once the database is back."
)

RESUME_PARAM = "resume"


def resume_token() -> str | None:
    token = st.query_params.get(RESUME_PARAM)
    return str(token) if token else None


def load_saved(sig: str, attempts: dict[int, Attempt]) -> str | None:
    """Once per session and assignment: put the attempts saved under the link's resume id into ``attempts``.
    Returns a message to show when the id cannot be used."""
    token = resume_token()
    if not token:
        return None
    done = st.session_state.setdefault("exq_resumed", set())
    if (token, sig) in done:
        return None
    try:
        attempts.update(study.load_attempts(engine(), token, sig))
    except ClassroomError as exc:
        return str(exc)
    except Exception as exc:
        if not database_down(exc):
            raise
        return DATABASE_DOWN  # not marked done: the next run tries again
    done.add((token, sig))
    return None


def save(sig: str, number: int, attempt: Attempt) -> None:
    """Store one attempt under the link's resume id (nothing to do without one)."""
    token = resume_token()
    if token:
        try:
            study.save_attempt(engine(), token, sig, number, attempt)
        except ClassroomError as exc:
            st.session_state["exq_resume_error"] = str(exc)
        except Exception as exc:
            if not database_down(exc):
                raise
            st.session_state["exq_resume_error"] = DATABASE_DOWN


def start(sig: str, attempts: dict[int, Attempt]) -> None:
    """A button's callback: a new resume id in the link, with every attempt so far stored under it."""
    try:
        token = study.new_study(engine())
        for number, attempt in attempts.items():
            study.save_attempt(engine(), token, sig, number, attempt)
    except Exception as exc:
        if not database_down(exc):
            raise
        st.session_state["exq_resume_error"] = DATABASE_DOWN.replace("under this link", "yet")
        return
    st.query_params[RESUME_PARAM] = token
    st.session_state.setdefault("exq_resumed", set()).add((token, sig))
