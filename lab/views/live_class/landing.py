"""The Class page before a class: join one (a student, with the class code and a name) or start one (a teacher).
Both go through lab.classroom.actions; a joined student's page is lab.views.live_class.student, a teacher's
lab.views.live_class.teacher."""

from __future__ import annotations

import streamlit as st

from lab.classroom.actions import PENDING, anonymous_join_link, answered_later, join_from_landing, start_class
from lab.classroom.naming import MAX_IDENTIFIER
from lab.core.errors import said
from lab.core.formatting import markdown_escape
from lab.i18n import N_
from lab.views.live_class.common import (
    WAIT_FOR_PENDING,
    go_to,
    keep_pending,
    may_send,
    pending_outcome,
    redraw_when_pending_ends,
)
from lab.views.live_class.database import browser_key, client_address, engine
from lab.views.live_class.plan_panel import plan_preview
from lab.views.live_class.session_keys import Keys
from lab.views.live_class.teacher_memory import read_teacher_memory
from lab.views.ui import language
from lab.views.ui.accessibility import announce, section

ANONYMOUS_NOTE = N_(
    "This class is anonymous: you do not type a name. You get a random one, such as *Otter 17*; your teacher sees "
    "only that."
)


def join_form(code: str, anonymous: bool = False) -> str:
    """Join with a class code and a name (``anonymous``: the join link's class gives names, none is asked); returns
    the refusal to announce."""
    _ = language.texts()
    section(_("Join a class"))
    with st.form(Keys.JOIN_FORM, border=True):
        typed_code = st.text_input(
            _("Class code"), value=code, placeholder=_("e.g. {example}", example="K7M2QX"), key=Keys.JOIN_CODE
        )
        name = ""
        if anonymous:
            st.markdown(_(ANONYMOUS_NOTE))
        else:
            name = st.text_input(
                _("Your name"), key=Keys.JOIN_NAME,
                help=_("1 to 40 characters; your teacher sees it. In an anonymous class leave it empty: you get a "
                       "random name."),
            )  # fmt: skip
        identifier = st.text_input(
            _("Student number (optional)"), key=Keys.JOIN_IDENTIFIER, max_chars=MAX_IDENTIFIER,
            help=_("If your teacher asks for it: it goes with your answers into the results file."),
        )
        pressed = st.form_submit_button(_("Join"), type="primary")
    if not pressed:
        return ""
    if not may_send():
        st.error(language.say(WAIT_FOR_PENDING))
        return language.say(WAIT_FOR_PENDING)
    joined, refusal = join_from_landing(
        engine,
        typed_code,
        name,
        client=browser_key(),
        address=client_address(),
        link_code=code,
        key=str(st.query_params.get("join", ""))[:64],
        identifier=identifier,
        on_pending=keep_pending(said("Your join")),
    )
    if joined is None:
        return _refused(refusal)
    _seated(joined)
    return ""


def _refused(refusal: str) -> str:
    """Say why a Join or Start a class did not go through; one the database has not answered yet is followed (the
    page runs again once it ends: arrived_late)."""
    words = language.say(refusal)
    if refusal == PENDING:
        st.warning(words)
        redraw_when_pending_ends()
    else:
        st.error(markdown_escape(words))
    return words


def _seated(joined) -> None:
    st.session_state[Keys.JOINED] = True  # the student's page moves keyboard focus to its heading
    go_to(code=joined.code, student=joined.student_token)


def _started(new) -> None:
    st.session_state[Keys.NEW_CLASS] = new.code
    st.session_state[Keys.TEACHER_FOCUS] = "class"  # the dashboard moves keyboard focus to its heading
    go_to(code=new.code, teacher=new.teacher_token)


def arrived_late() -> None:
    """A Join or Start a class the database answered after the page stopped waiting (kept by keep_pending): the
    student goes to the seat, the teacher to the dashboard, as if it had answered in time (a seat written at the
    thaw is never one nobody can use); a refusal or a failure, and the wait itself, are said by pending_outcome."""
    kept = st.session_state.get(Keys.PENDING)
    if kept is not None and kept[2].done():
        value = answered_later(kept[2]).value
        if getattr(value, "student_token", None):
            del st.session_state[Keys.PENDING]
            _seated(value)
        elif getattr(value, "teacher_token", None):
            del st.session_state[Keys.PENDING]
            _started(value)
    pending_outcome()


def start_form() -> str:
    """Start a class; returns the refusal to announce."""
    _ = language.texts()
    section(_("Start a class (teacher)"))
    plan = plan_preview()
    with st.form(Keys.START_FORM, border=True):
        class_name = st.text_input(
            _("Class name (optional)"), key=Keys.START_NAME, placeholder=_("e.g. {example}", example=_("Period 3"))
        )
        anonymous = st.checkbox(
            _("Anonymous class: no names asked"), key=Keys.START_ANONYMOUS,
            help=_("Each student gets a random name such as Otter 17, shown to them and to you."),
        )  # fmt: skip
        started = st.form_submit_button(_("Start a class with this plan") if plan is not None else _("Start a class"))
    if not started:
        return ""
    if not may_send():
        st.error(language.say(WAIT_FOR_PENDING))
        return language.say(WAIT_FOR_PENDING)
    new, refusal = start_class(
        engine, class_name, client=browser_key(), address=client_address(), anonymous=anonymous is True, plan=plan,
        on_pending=keep_pending(said("Starting the class")),
    )  # fmt: skip
    if new is None:
        return _refused(refusal)
    _started(new)
    return ""


def landing(code: str) -> None:
    arrived_late()
    if code and not st.query_params.get("join"):
        read_teacher_memory()  # a reload of a teacher's dashboard (?code=C): this tab's kept token opens it again
    _ = language.texts()
    if code and st.query_params.get("join"):  # the join link a student scanned: joining only, no teacher's form
        anonymous = anonymous_join_link(engine, code, str(st.query_params.get("join", ""))[:64])
        st.caption(
            _("Press Join: the class code is filled in from the link you opened.")
            if anonymous
            else _("Type your name and press Join: the class code is filled in from the link you opened.")
        )
        refusal = join_form(code, anonymous)
        announce(Keys.LIVE, error=refusal)
        return
    st.caption(_(
        "Students: type the class code your teacher shows and your name. Teachers: start a class, project its "
        "code, and watch the predictions arrive before you reveal the answer."
    ))
    join, start = st.columns(2, gap="large")
    with join:
        refusal = join_form(code)
    with start:
        refusal = start_form() or refusal
    announce(Keys.LIVE, error=refusal)
