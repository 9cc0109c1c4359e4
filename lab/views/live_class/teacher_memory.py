"""The teacher token out of the address bar: once the tab holds it, the dashboard's address is ``?code=C`` alone (an
address bar is seen, projected, kept in the history and sent as a Referer; docs/security.md), and this tab's
sessionStorage keeps the class code and token (lab.views.ui.browser_memory: only on the teacher's device, gone with
the tab, nothing for another tab or the next person on a shared computer). A reload of ``?code=C`` in the same tab
opens the dashboard again: the landing reads what the tab kept for that code and hands it to the tab's desk. The
private teacher link on the dashboard (copy it) opens the dashboard in any other tab or browser."""

from __future__ import annotations

import json

import streamlit as st

from lab.classroom.naming import CODE_LENGTH
from lab.views.ui.browser_memory import LOADED, browser_memory

MEMORY_NAME = "residual-lab-teacher"
FOUND = "cls_teacher_memory_found"  # (code, token) this tab held, as read once in this session
MAX_TOKEN = 100


def _arrived(text: str) -> None:
    """What the tab held (a message anyone could craft: read strictly, else ignored; the dashboard checks the token
    against the class like any teacher link)."""
    try:
        code, token = json.loads(text)
    except (ValueError, TypeError):
        return
    if isinstance(code, str) and isinstance(token, str) and len(code) <= CODE_LENGTH and 0 < len(token) <= MAX_TOKEN:
        st.session_state[FOUND] = (code, token)


def keep_teacher(code: str, token: str) -> None:
    """On the dashboard: this tab keeps the class code and token (nothing is read back here: no extra run)."""
    st.session_state[LOADED + MEMORY_NAME] = True
    browser_memory(MEMORY_NAME, json.dumps([code, token]), _arrived, tab=True)


def kept_teacher_token(code: str) -> str:
    """The token this tab kept for class ``code``, once read (lab.views.live_class.teacher_desk.tab_teacher_token
    asks); "" when none."""
    found = st.session_state.get(FOUND)
    return found[1] if found is not None and code and found[0] == code else ""


def read_teacher_memory() -> None:
    """On the landing opened with ``?code=C`` (a reload of the dashboard's address): read what this tab kept; when it
    holds something the page runs again and the tab's desk takes it (a tab that kept nothing costs no extra run)."""
    browser_memory(MEMORY_NAME, None, _arrived, tab=True)


def forget_teacher() -> None:
    """A kept token the class refused (replaced by New teacher link, the class deleted, a crafted text): this tab
    forgets it, so ``?code=C`` opens the join form again."""
    st.session_state.pop(FOUND, None)
    st.session_state[LOADED + MEMORY_NAME] = True
    browser_memory(MEMORY_NAME, "", _arrived, tab=True)
