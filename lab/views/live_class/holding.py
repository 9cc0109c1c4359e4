"""Focus during a class: while a joined student's class runs, that student's browser shows the class and nothing
that could answer its open question (the Binomial lab's guide and the explorer's Reveal state the worked example's
answer). The student's Class page holds the class in this browser session; app.py then lists the Class page
alone in the menu, and any other page (a link followed inside the app) says the class is in progress, with a link
back to the student's own page. After End class (or when the class expires) everything opens again.

One cached lookup per run of a held session (lab.views.live_class.database.class_version, shared for a second by the
whole process); nothing for anyone else.
"""

from __future__ import annotations

import streamlit as st

from lab.classroom.actions import DATABASE_DOWN, outcome
from lab.views.live_class.database import class_version
from lab.views.live_class.session_keys import Keys
from lab.views.ui import language
from lab.views.ui.accessibility import title

HELD = Keys.HELD
CLASS_PAGE = "lab/views/live_class/classroom.py"


def hold(code: str, student: str) -> None:
    """The student's page of a running class: this session shows the class only until it ends."""
    st.session_state[HELD] = (code, student)


def release() -> None:
    st.session_state.pop(HELD, None)


def running_class() -> tuple[str, str] | None:
    """(code, student token) while this session's student's class runs, else None (and the hold is dropped)."""
    held = st.session_state.get(HELD)
    if not held:  # the student's own link, before its page has run (right after Join, or a new tab)
        code, student = str(st.query_params.get("code", ""))[:40], str(st.query_params.get("student", ""))[:100]
        if not (code and student):
            return None
        held = (code, student)
    read = outcome(lambda _engine: class_version(held[0]), None, DATABASE_DOWN, gated=False)  # its own bounded wait
    if read.down:
        return held  # the class cannot be read: it may still run, so the focus stays
    current = read.value
    if current is None or not current.open:
        release()
        return None
    return held  # (a forged student link gets the Class page alone too, whose page then refuses it)


def in_progress(held: tuple[str, str], page_title: str) -> None:
    """Drawn instead of another page while the class runs: what happened, and the way back."""
    code, student = held
    title(page_title)
    _ = language.texts()
    st.info(_(
        "Your class {code} is in progress: the other pages of the lab open again when your teacher ends the "
        "class. Until then, this browser shows the class.", code=code,
    ))
    st.page_link(
        CLASS_PAGE,
        label=_("Back to your class"),
        icon=":material/groups:",
        query_params={"code": code, "student": student},
    )
