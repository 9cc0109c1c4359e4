"""Exercises self-study that survives reloads and restarts: a private resume id in the page's link
(``resume=...``), the attempts stored through lab.classroom.study (the classroom database)."""

from __future__ import annotations

import streamlit as st

from lab.classroom import study
from lab.classroom.actions import outcome
from lab.core.errors import said
from lab.teaching.exercises import Attempt
from lab.views.live_class.database import engine

DATABASE_DOWN = said(
    "the class database cannot be reached right now, so your attempts are not being saved under this link; "
    "they stay on this page, and saving starts again by itself once the database is back."
)
DATABASE_DOWN_AT_START = said(  # before a resume link exists
    "the class database cannot be reached right now, so your attempts are not being saved yet; they stay on this "
    "page, and saving starts again by itself once the database is back."
)

RESUME_PARAM = "resume"
PENDING = "exq_resume_pending"  # (resume id, assignment, problem) -> attempt, while the database is down
RESUME_ERROR = "exq_resume_error"  # what to say of the resume link in the next run (the Exercises page shows it)
RESUMED = "exq_resumed"  # the (resume id, assignment) pairs whose saved attempts this session has loaded
UNLOADED = "exq_resume_unloaded"  # the assignment whose saved attempts could not be read yet
RETRY_SECONDS = 3


def _stored(call):
    """``call(engine)`` on the classroom database as lab.classroom.actions meets it (its Outcome: a refusal or an
    outage in words), through the gate's bounded wait like every class page's call: a frozen database makes the
    resume link say so within RESIDUAL_LAB_DB_TIMEOUT_S and offer the problems without the saved answers, instead
    of holding the page until the database answers. A save that had started when the wait ended may still land;
    it is kept and sent again (save_attempt writes the same row either way)."""
    return outcome(call, engine, DATABASE_DOWN)


def resume_token() -> str | None:
    token = st.query_params.get(RESUME_PARAM)
    return str(token) if token else None


def load_saved(assignment_key: str, attempts: dict[int, Attempt]) -> str | None:
    """Once per session and assignment: put the attempts saved under the link's resume id into ``attempts``.
    Returns a message to show when the id cannot be used."""
    token = resume_token()
    if not token:
        return None
    if not flush():  # attempts made while the database was down are stored first
        return DATABASE_DOWN
    done = st.session_state.setdefault(RESUMED, set())
    if (token, assignment_key) in done:
        return None
    loaded = _stored(lambda db: study.load_attempts(db, token, assignment_key))
    if loaded.refused is not None:
        st.session_state.pop(UNLOADED, None)
        return loaded.refusal
    if loaded.down:
        st.session_state[UNLOADED] = assignment_key  # not marked done: the next run (or the retry) tries again
        return DATABASE_DOWN
    st.session_state.pop(UNLOADED, None)
    for number, attempt in loaded.value.items():
        attempts.setdefault(number, attempt)  # an attempt made on this page is newer than the stored one
    done.add((token, assignment_key))
    return None


def waiting() -> bool:
    """Whether something waits for the database: attempts not yet stored, or a resume not yet loaded."""
    return bool(st.session_state.get(PENDING)) or UNLOADED in st.session_state


@st.fragment(run_every=RETRY_SECONDS)
def retry_while_down() -> None:
    """Drawn only while the database is down: tries again every few seconds without a click, and redraws
    the page once everything waiting is stored (the warning then goes)."""
    if not flush():
        return
    if (assignment_key := st.session_state.get(UNLOADED)) is not None:
        if _stored(lambda db: study.load_attempts(db, resume_token() or "", assignment_key)).down:
            return  # (a refused link: the full run says what is wrong with it)
    st.rerun()


def flush() -> bool:
    """Store every attempt that waits (they wait here while the database is down). True when none waits."""
    pending = st.session_state.setdefault(PENDING, {})
    for key, attempt in list(pending.items()):
        # key: (resume id, assignment, problem), save_attempt's arguments before the attempt
        saved = _stored(lambda db, key=key, attempt=attempt: study.save_attempt(db, *key, attempt))
        if saved.down:
            return False
        if saved.refused is not None:
            st.session_state[RESUME_ERROR] = saved.refusal
        pending.pop(key)
    return True


def save(assignment_key: str, number: int, attempt: Attempt) -> None:
    """Store one attempt under the link's resume id (nothing to do without one)."""
    token = resume_token()
    if token:
        st.session_state.setdefault(PENDING, {})[(token, assignment_key, number)] = attempt
        if not flush():
            st.session_state[RESUME_ERROR] = DATABASE_DOWN


def start(assignment_key: str, attempts: dict[int, Attempt]) -> None:
    """A button's callback: a new resume id in the link, with every attempt so far stored under it."""
    def store_all(db) -> str:
        token = study.new_study(db)
        for number, attempt in attempts.items():
            study.save_attempt(db, token, assignment_key, number, attempt)
        return token

    started = _stored(store_all)
    if started.refused is not None:
        raise started.refused  # (new_study refuses nothing: a bug)
    if started.down:
        st.session_state[RESUME_ERROR] = DATABASE_DOWN_AT_START
        return
    token = started.value
    st.query_params[RESUME_PARAM] = token
    st.session_state.setdefault(RESUMED, set()).add((token, assignment_key))
