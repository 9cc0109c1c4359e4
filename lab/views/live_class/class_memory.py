"""A joined phone keeps its class: the student's page writes the class code and the student's private id to this
tab's sessionStorage (lab.views.ui.browser_memory; nothing more is stored, only on the student's device, and not for
a new tab: the next person on a shared computer gets nothing), and the page a phone opens at the app's root
(Start here) holds the class again (lab.views.live_class.holding: the class only, with the
way back) while it runs. Once it has ended, or the link is refused, the tab forgets it."""

from __future__ import annotations

import json

import streamlit as st

from lab.classroom.actions import StudentSeat
from lab.classroom.naming import CODE_LENGTH
from lab.views.live_class import holding
from lab.views.live_class.database import engine
from lab.views.ui.browser_memory import LOADED, browser_memory

MEMORY_NAME = "residual-lab-class"
FOUND = "cls_memory_found"  # (code, student id) the browser held, as read once in this session
MAX_ID = 100


def _arrived(text: str) -> None:
    """What the browser held (a message anyone could craft: read strictly, else ignored)."""
    try:
        code, token = json.loads(text)
    except (ValueError, TypeError):
        return
    if isinstance(code, str) and isinstance(token, str) and len(code) <= CODE_LENGTH + 2 and 0 < len(token) <= MAX_ID:
        st.session_state[FOUND] = (code, token)


def remember_class(code: str, token: str, running: bool) -> None:
    """On the student's page (its whole runs only): keep this class in the browser while it runs, forget it after.
    What the browser held is not read here (no extra run of a student's page for it)."""
    st.session_state[LOADED + MEMORY_NAME] = True
    browser_memory(MEMORY_NAME, json.dumps([code, token]) if running else "", _arrived, tab=True)


def back_to_class() -> None:
    """On the app's root, which a joined phone may open instead of its class: the class held again while it runs.
    (Not on the Class page's join form: every student of a class opens it at once, and the class's own Class menu
    entry already leads a held tab back.)"""
    found = st.session_state.get(FOUND)
    keep = None
    if found is not None:
        read = StudentSeat(*found).state(engine)
        if read.down:
            pass  # the database is away: say nothing now, try in a later run
        elif read.value is None or not read.value.open:
            st.session_state.pop(FOUND, None)
            keep = ""  # refused or ended: the browser forgets it
        else:  # it runs: this tab shows the class only again, as before it left
            holding.hold(*found)
            st.rerun()
    browser_memory(MEMORY_NAME, keep, _arrived, tab=True)
