"""What the Class page's three views (class_landing, class_teacher, class_student) share: the page's links, a call
the class database answered late (said once, by name), and waiting for the database while it is down. Every read
and change goes through lab.classroom.actions (its ``outcome``: the one place a refusal or an outage becomes
words)."""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit, urlunsplit

import streamlit as st

from lab.classroom.actions import (
    DATABASE_DOWN,
    DOWN_WHILE_PENDING,
    NOT_ANSWERING,
    NOT_ANSWERING_WHILE_PENDING,
    Feedback,
    Outcome,
    answered_later,
    database_answers,
    sent_at,
)
from lab.core.errors import said
from lab.core.formatting import markdown_escape
from lab.i18n import LANGUAGES, SOURCE
from lab.views.live_class.database import engine
from lab.views.live_class.session_keys import Keys
from lab.views.ui import language
from lab.views.ui.accessibility import announce
from lab.views.ui.charts import show_feedback
from lab.views.ui.page_state import sync_query_params

URL_PATH = "class"
URL_PATH_PAGE = "lab/views/live_class/classroom.py"
PROJECTOR_PATH = "projector"
RETRY_EVERY_S = 3.0  # how often a page that lost the class database tries again
PENDING_CHECK_EVERY_S = 1.0  # how often a page with a call still waiting for the database looks whether it ended
WAIT_FOR_PENDING = said("What you sent before is still waiting for the class database: nothing new was sent.")


def page_url(page: str, **params) -> str:
    """A link to a page of this app with ``params``, from the address this browser opened (a path prefix is
    kept): for the teacher's own links (the teacher link, the projector), not for students (see join_link). They
    speak the teacher's language (``lang``, unless it is English by default): the projector follows the teacher, while
    each student's phone follows its own."""
    if language.current() in LANGUAGES and (language.current() != SOURCE or language.chosen_explicitly()):
        params = {**params, language.LINK_PARAM: language.current()}
    parts = urlsplit(st.context.url or "http://localhost:8501/")
    path = parts.path.rstrip("/")
    prefix = path.rsplit("/", 1)[0] if path.count("/") > 1 else ""
    return urlunsplit((parts.scheme, parts.netloc, f"{prefix}/{page}", urlencode(params), ""))


def go_to(**params) -> None:
    """Replace the page's URL parameters (keeping the app-wide ones) and run the page again."""
    sync_query_params(params)
    st.rerun()


def keep_pending(what: str):
    """An ``on_pending`` for lab.classroom.actions: keep the call in this session, so the page says once what
    became of it (pending_outcome). ``what``: the call's name, a :class:`~lab.core.errors.Said` ("Your join")."""

    def keep(future) -> None:
        st.session_state[Keys.PENDING] = (what, sent_at(), future)

    return keep


def still_pending() -> bool:
    kept = st.session_state.get(Keys.PENDING)
    return kept is not None and not kept[2].done()


def may_send() -> bool:
    """Before a press sends anything: False while an earlier call still waits for the database. Otherwise the
    page stops saying what became of the last late call: this press is the user's next step."""
    if still_pending():
        return False
    st.session_state.pop(Keys.PENDING_SAID, None)
    return True


def pending_outcome() -> None:
    """Say what became of a call the database had not answered in time: saved or refused when it answered (by
    name), or still waiting. Once said, it stays on the page until the next press (may_send): the page may run
    again by itself at once (the teacher's dashboard redraws the whole page when the database is back), and a
    run that dropped it would leave the user never told."""
    kept = st.session_state.get(Keys.PENDING)
    if kept is not None:
        what, sent, future = kept
        if not future.done():
            st.info(markdown_escape(language.say(
                said("{what} (sent at {time}) is waiting for the class database: not saved yet.", what=what, time=sent)
            )))
            redraw_when_done(future)
            return
        del st.session_state[Keys.PENDING]
        st.session_state[Keys.PENDING_SAID] = _late_answer(what, sent, answered_later(future))
    told = st.session_state.get(Keys.PENDING_SAID)
    if told is not None:
        show_feedback(told)


def _late_answer(what: str, sent: str, answered: Outcome) -> Feedback:
    """What a call answered late came to, in words."""
    if answered.refused is not None:
        return Feedback("error", said(
            "{what} (sent at {time}) was refused when the database answered: {refusal}",
            what=what, time=sent, refusal=answered.refusal,
        ))
    if answered.down:
        return Feedback("error", said(
            "{what} (sent at {time}) was not saved: the database failed. Send it again.", what=what, time=sent
        ))
    result = answered.value
    if isinstance(result, tuple) and hasattr(result[0], "message"):
        return Feedback("success", said(
            "{what} (sent at {time}) was saved when the database answered. {message}",
            what=what, time=sent, message=result[0].message,
        ))
    return Feedback(
        "success", said("{what} (sent at {time}) was saved when the database answered.", what=what, time=sent)
    )


def redraw_when_done(future) -> None:
    """While ``future`` (a call the database had not answered in time) runs: look every PENDING_CHECK_EVERY_S and
    run the whole page once it ended, so the page says what became of it by itself, as PENDING promises (a page
    with nothing else due to run said "waiting" until the next press: a student's Submit saved late,
    tests/browser/test_class_pending_browser.py)."""

    def look() -> None:
        if future.done():
            st.rerun()

    st.fragment(run_every=PENDING_CHECK_EVERY_S)(look)()


def redraw_when_pending_ends() -> None:
    """In a part of the page that runs alone (a fragment: a student's Submit reruns only the activity), while the
    page's heading, outside it, is where pending_outcome says what became of a call: look until the call ended,
    then run the whole page."""
    kept = st.session_state.get(Keys.PENDING)
    if kept is not None:
        redraw_when_done(kept[2])


def wait_for_database() -> None:
    """On a page that could not read the class database: try again every RETRY_EVERY_S and redraw the whole
    page once it answers (what the student typed stays: the page is drawn again with the same widgets)."""

    def retry() -> None:
        if database_answers(engine):
            st.rerun()

    st.fragment(run_every=RETRY_EVERY_S)(retry)()


_WHILE_PENDING = {DATABASE_DOWN: DOWN_WHILE_PENDING, NOT_ANSWERING: NOT_ANSWERING_WHILE_PENDING}


def lost_words(message: str, pending: bool) -> str:
    """What the page says of a lost database; while a call it sent still waits (PENDING is on the page: "what you
    just sent waits for it"), not also that nothing was saved: that call may still be."""
    if not pending:
        return message
    return _WHILE_PENDING.get(message, message)


def database_lost(message: str) -> None:
    """The page could not read the class database: say so, announce it, and wait for it."""
    message = language.say(lost_words(message, still_pending()))
    st.warning(markdown_escape(message))
    announce(Keys.LIVE, error=message)
    wait_for_database()
