"""A class page keeps following the teacher whatever happens to one check or one redraw (issue: a Reveal reached
the projector after 40.8 s while the phones showed it after 3.4 s).

Why a page stopped following: its follow component (lab.views.live_class.follow) stopped checking for good once it had
asked
for a redraw, counting on that redraw to start it again with the new version. A redraw that did not bring a new
version (a check answered 503 while the page's own reading worked) or that never came (the trigger's rerun lost on
the way) left it stopped, and a request that hung held it: the page then showed nothing more the teacher did until
something else redrew it. Here each of those is made to happen, deterministically, in Chromium: the page's checks
go through Playwright's router (the first answered 503, the second never answered) and its WebSocket through
Playwright's (the first redraw asked for after a teacher action is dropped). On the old component the page is still
on the old state at the end of each wait; now it follows every time, and two actions in quick succession end on the
newest state. Not a timing test: each wait is long (10 s) beside the 1 s checks, to say "followed" or "never".
"""

from __future__ import annotations

import time

import pytest

from browserlib import DESKTOP, app_and_class_engine, goto

LOCKED = "Your teacher has locked this activity"
REVEALED = "The exact answer (revealed by your teacher)"
CLOSED = "Your teacher has revealed the answer: this vote is closed"  # said under Submit, the lock's words replaced


@pytest.fixture(scope="module")
def follow_app(tmp_path_factory):
    with app_and_class_engine(tmp_path_factory.mktemp("followdata")) as app:
        yield app


def shows(page, text: str, timeout_s: float = 10) -> bool:
    """Whether the page shows ``text`` within ``timeout_s`` (polled from here, so a routed request gets answered)."""
    deadline = time.monotonic() + timeout_s
    while time.monotonic() < deadline:
        page.wait_for_timeout(250)
        if text in page.inner_text("body"):
            return True
    return False


def is_trigger(message) -> bool:
    """A rerun the follow component's trigger asks for (a widget state with a JSON trigger value)."""
    from streamlit.proto.BackMsg_pb2 import BackMsg

    if not isinstance(message, bytes):
        return False
    msg = BackMsg()
    msg.ParseFromString(message)
    states = msg.rerun_script.widget_states.widgets if msg.WhichOneof("type") == "rerun_script" else []
    return any(w.WhichOneof("value") == "json_trigger_value" for w in states)


def test_a_page_keeps_following_after_a_failed_check_a_hung_check_and_a_lost_redraw(browser, follow_app):
    from lab.classroom import admission, classes

    url, engine = follow_app
    new = classes.create_class(engine, "Follow")
    classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    student = admission.join_class(engine, new.code, "Ann").student_token
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    checks = {"seen": 0, "held": []}

    def route_check(route):
        checks["seen"] += 1
        if checks["seen"] == 1:
            route.fulfill(status=503, body='{"error": "unavailable"}', content_type="application/json")
        elif checks["seen"] == 2:
            checks["held"].append(route)  # never answered: the browser's request hangs
        else:
            route.continue_()

    page.route("**/_class_version?*", route_check)
    socket = {"drop": False, "dropped": 0}

    def route_socket(ws):
        server = ws.connect_to_server()

        def to_server(message):
            if socket["drop"] and is_trigger(message):
                socket["drop"] = False
                socket["dropped"] += 1
                return
            server.send(message)

        ws.on_message(to_server)
        server.on_message(ws.send)

    page.route_web_socket("**/_stcore/stream", route_socket)
    goto(page, f"{url}/class?code={new.code}&student={student}")
    # a check answered 503 (the page redraws, still on the same version), then one that hangs
    deadline = time.monotonic() + 10
    while checks["seen"] < 2 and time.monotonic() < deadline:
        page.wait_for_timeout(250)
    assert checks["seen"] >= 2, "the page stopped checking after a check answered 503"
    classes.lock(engine, new.code, new.teacher_token)
    assert shows(page, LOCKED), "after a failed and a hung check the page no longer follows the teacher"
    # the redraw the page asks for after the next action is lost on the way: it asks again
    socket["drop"] = True
    classes.unlock(engine, new.code, new.teacher_token)
    deadline = time.monotonic() + 10
    while LOCKED in page.inner_text("body") and time.monotonic() < deadline:
        page.wait_for_timeout(250)
    assert socket["dropped"] == 1
    assert LOCKED not in page.inner_text("body"), "a redraw lost on the way was not asked for again"
    # two actions in quick succession: the page ends on the newest state
    classes.lock(engine, new.code, new.teacher_token)
    classes.reveal(engine, new.code, new.teacher_token)
    assert shows(page, REVEALED) and shows(page, CLOSED, 2)
    context.close()
