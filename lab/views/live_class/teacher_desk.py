"""The teacher's tab and its one way to change the class: the teacher token this tab holds (tab_teacher_token),
its TeacherDesk, and ``change``, the callback every button of the dashboard runs through (it keeps a refusal or an
outage to say in the next run). lab/views/live_class/teacher.py and teacher_links.py draw the buttons."""

from __future__ import annotations

import streamlit as st

from lab.classroom.actions import TeacherDesk
from lab.core.errors import Said
from lab.i18n import N_
from lab.views.live_class.common import WAIT_FOR_PENDING, keep_pending, may_send
from lab.views.live_class.database import engine
from lab.views.live_class.session_keys import Keys
from lab.views.live_class.teacher_memory import kept_teacher_token


def tab_teacher_token(code: str) -> str:
    """The teacher token of this tab: from the link, or the one the tab's desk holds, or the one this tab kept in
    its sessionStorage (a reload: lab.views.live_class.teacher_memory). Once the tab holds it, the token leaves the
    address bar, as it did in presentation mode: an address bar is seen, projected and kept in the history; the
    dashboard's private teacher link opens it anywhere else."""
    linked = str(st.query_params.get("teacher", ""))[:100]
    kept = st.session_state.get(Keys.TEACHER_DESK)
    ours = kept is not None and kept.code == code
    if ours and linked and linked == kept.replaced:  # New teacher link went through after the page had run
        linked = kept.token
    token = linked or (kept.token if ours else "") or kept_teacher_token(code)
    if not token:
        return ""
    if not (ours and kept.token == token):  # the same desk while it stands: a late answer updates it
        st.session_state[Keys.TEACHER_DESK] = TeacherDesk(code, token)
    if "teacher" in st.query_params:
        del st.query_params["teacher"]
    return token


def class_view() -> tuple[str, str, str]:
    """Which of the Class page's views this run draws, from the link: (code, student id, teacher token); a teacher
    token means the teacher's dashboard, else a student id the student's page, else the landing."""
    code = str(st.query_params.get("code", ""))[:40]
    student = str(st.query_params.get("student", ""))[:100]
    teacher = "" if student and "teacher" not in st.query_params else tab_teacher_token(code)
    return code, student, teacher


def the_desk() -> TeacherDesk:
    return st.session_state.get(Keys.TEACHER_DESK) or TeacherDesk("", "")


def change(change, label: str, *, focus: str = "", refusal_key: str = Keys.TEACHER_ERROR) -> bool:
    """The one way a teacher's button changes the class (a callback): nothing is sent while an earlier call still
    waits for the database; ``change(on_pending)`` runs a TeacherDesk method, a call the database answers late is
    kept (``label`` names it when the page says what became of it), and its refusal is kept under
    ``refusal_key`` to show in the next run. ``focus``: what gets keyboard focus in the next run when the pressed
    button is gone or replaced ("activity": the current activity's heading; "lock": the Lock or Unlock button now
    in its place). Returns whether it went through."""
    if focus:
        st.session_state[Keys.TEACHER_FOCUS] = focus
    if not may_send():
        st.session_state[refusal_key] = WAIT_FOR_PENDING
        return False
    if refusal := change(keep_pending(label)):
        st.session_state[refusal_key] = refusal
    return not refusal


# each teacher action's name, as the page says what became of a press the database answered late
ACTION_NAMES = {
    "show_responses": N_("Show responses"), "vote_again": N_("Vote again"), "reveal": N_("Reveal"), "lock": N_("Lock"),
    "unlock": N_("Unlock"), "add_time": N_("Add time"), "open_from_plan": N_("Open from plan"),
    "remove_from_plan": N_("Remove from plan"), "add_to_plan": N_("Add to plan"), "set_plan": N_("Set plan"),
    "stop_countdown": N_("Stop countdown"), "next_activity": N_("Next activity"), "end_class": N_("End class"),
    "remove_student": N_("Remove student"), "remove_students": N_("Remove students"), "allow_back": N_("Allow back"),
    "lock_joins": N_("Lock joins"), "set_expected_size": N_("Set expected size"), "set_anonymous": N_("Set anonymous"),
    "new_join_link": N_("New join link"), "admit_waiting": N_("Admit waiting"),
}  # fmt: skip


def teacher_action(action, *args, focus: str = "") -> None:
    """A button's callback: run a teacher action (TeacherActions) on this tab's class (see change)."""
    name = getattr(action, "__name__", "action")
    label = Said(ACTION_NAMES.get(name) or name.strip("_").replace("_", " ").capitalize())
    change(lambda on_pending: the_desk().act(engine, action, *args, on_pending=on_pending), label, focus=focus)


def teacher_button(place, label: str, key: str, action, *args, focus: str = "", idle: bool = False, **options) -> None:
    """A button in ``place`` that runs a teacher action (TeacherActions) on this tab's class (``focus``: see
    teacher_action). ``idle``: pressed, it does nothing (it is never disabled: focus would drop to the page's
    body)."""
    place.button(
        label,
        key=key,
        on_click=None if idle else teacher_action,
        args=() if idle else (action, *args),
        kwargs={"focus": focus} if focus and not idle else {},
        **options,
    )
