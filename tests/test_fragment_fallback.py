"""lab.views.patches.fragment_fallback: a press in a fragment the session does not hold (a restarted server) asks for
the
whole page with the same widget values; everything else is asked for as the browser sent it."""

from __future__ import annotations

import inspect

from streamlit.proto.ClientState_pb2 import ClientState
from streamlit.runtime.app_session import AppSession

from lab.views.patches import fragment_fallback


class Session:
    def __init__(self, *held: str):
        self.held = set(held)

    def has_fragment(self, fragment_id: str) -> bool:
        return fragment_id in self.held


def press(fragment_id: str, auto: bool = False) -> ClientState:
    state = ClientState(query_string="code=ABC&student=x", page_script_hash="page", fragment_id=fragment_id)
    state.is_auto_rerun = auto
    widget = state.widget_states.widgets.add()
    widget.id, widget.trigger_value = "$$ID-submit-cls_submit", True
    return state


def test_a_press_in_an_unknown_fragment_runs_the_whole_page_with_its_widget_values():
    sent = press("f1")
    asked = fragment_fallback.as_whole_page(Session(), sent)
    assert asked.fragment_id == "" and sent.fragment_id == "f1"  # a copy: what the browser sent is unchanged
    assert asked.widget_states == sent.widget_states and asked.query_string == sent.query_string
    assert asked.page_script_hash == "page"


def test_a_known_fragment_an_automatic_rerun_and_a_whole_page_are_asked_for_as_sent():
    for session, sent in (
        (Session("f1"), press("f1")),  # the session holds it: the fragment runs
        (Session(), press("f1", auto=True)),  # a timed fragment a full run removed: dropped, as Streamlit does
        (Session(), press("")),  # the whole page already
    ):
        assert fragment_fallback.as_whole_page(session, sent) is sent
    assert fragment_fallback.as_whole_page(Session(), None) is None


def test_installed_once_and_streamlit_still_drops_an_unknown_fragment():
    fragment_fallback.install()
    first = AppSession.request_rerun
    fragment_fallback.install()
    assert AppSession.request_rerun is first and first._lab_fallback
    # what this works around: a Streamlit upgrade that stops dropping such a rerun makes it unnecessary
    source = inspect.getsource(inspect.unwrap(first.__closure__[0].cell_contents))
    assert "if fragment_id and not self.has_fragment(fragment_id):" in source and "return" in source
