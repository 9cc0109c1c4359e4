"""A rerun of a part of the page the server does not know runs the whole page instead (installed by server.py at
its start, before any page ran, and by app.py).

A browser asks for a fragment's rerun when a widget inside it changes (Submit on a student's class page, a bar
let go). Streamlit 1.67 drops such a request when the session has no fragment of that id
(``AppSession.request_rerun``: "The fragment ... does not exist anymore"), widget values and all. That happens
to the first press after the server restarted (or after a replica died and the page reconnected to another): the
new session has not run the page yet, so it knows none of its fragments, and the press would be lost.

:func:`install` turns such a request into a run of the whole page with the same widget values, which is what the
browser's first message after a reconnect gets anyway; the page then sees the press, whose callback the new
session could not know: the bar predictor saves its Submit itself (lab.views.ui.bar_predictor, "here"), and an
answer form's lab.views.live_class.student_work.submitted_without_callback. Only a
request the user made is turned: an automatic rerun (a timed fragment) of a fragment that a full run just removed
is still dropped, as Streamlit drops it. tests/test_fragment_fallback.py checks both, and fails if a Streamlit
upgrade changes the check this relies on.
"""

from __future__ import annotations

from streamlit.runtime.app_session import AppSession


def as_whole_page(session, client_state):
    """The rerun to ask for: ``client_state`` itself, or, for a press in a fragment ``session`` does not hold, a copy
    without the fragment (the whole page, with the same widget values)."""
    if (
        client_state is None
        or not client_state.fragment_id
        or client_state.is_auto_rerun
        or session.has_fragment(client_state.fragment_id)
    ):
        return client_state
    whole = type(client_state)()
    whole.CopyFrom(client_state)
    whole.ClearField("fragment_id")
    return whole


def install() -> None:
    """Wrap ``AppSession.request_rerun`` once per process (later calls do nothing)."""
    original = AppSession.request_rerun
    if getattr(original, "_lab_fallback", False):
        return

    def request_rerun(self, client_state):
        return original(self, as_whole_page(self, client_state))

    request_rerun._lab_fallback = True
    AppSession.request_rerun = request_rerun
