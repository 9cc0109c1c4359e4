"""The class under abuse, third pass (docs/security.md): the per-address count kept in memory before the database,
texts refused from their length before any work, the teacher's warning of joins arriving faster than people type
(with the lock beside it), and the address a request came from when Streamlit reports none (a loopback peer: where
deploy/serve's HAProxy connects from). Figures by hand from the documented limits: 600 presses of Join or Start a
class from one address a minute in a process, 25 joins in 5 s for the warning."""

from __future__ import annotations

import pytest
from pagetest import open_linked_page

from lab.classroom import actions, admission, classes, db, keys, limits, teacher_link
from lab.classroom.limits import AddressTries

PAGE = "lab/views/live_class/classroom.py"


def test_the_address_count_in_memory_by_hand():
    tries = AddressTries(most=3, window_s=60)
    assert [tries.take("198.51.100.1", 100.0) for _ in range(3)] == [0.0, 0.0, 0.0]
    assert tries.take("198.51.100.1", 110.0) == 50.0  # the window started at 100 and ends at 160
    assert tries.take("198.51.100.2", 110.0) == 0.0  # another address: unaffected
    assert tries.take("", 110.0) == 0.0  # an unknown address is not counted (AppTest, no connection)
    assert tries.take("198.51.100.1", 160.0) == 0.0  # a new window
    assert "at most 3 a minute): wait 50 s; nothing was sent." in tries.refusal(50.0)


def test_the_address_count_holds_a_bounded_number_of_addresses(monkeypatch):
    monkeypatch.setattr(limits, "MAX_ADDRESSES_KEPT", 100)
    tries = AddressTries(most=1, window_s=60)
    for i in range(1000):
        tries.take(f"10.0.{i // 256}.{i % 256}", 0.0)
    assert len(tries._windows) <= 100


def test_a_flood_from_one_address_is_refused_before_the_database(monkeypatch):
    monkeypatch.setattr(actions, "ADDRESS_TRIES", AddressTries())
    asked = []
    monkeypatch.setattr(actions, "outcome", lambda *a, **k: asked.append(a) or actions.Outcome(None))
    huge = "x" * 1_048_576
    said = [
        actions.join_from_landing(
            None, "K7M2QX", huge, client=f"xsrf:{i}", address="198.51.100.9", link_code="", key=""
        )[1]
        for i in range(limits.TRIES_PER_ADDRESS + 5)
    ]
    assert said[: limits.TRIES_PER_ADDRESS] == ["Your name: 1,048,576 characters; at most 40."] * 600
    assert said[-1].startswith("Too many tries from this network address (at most 600 a minute): wait 60 s")
    assert asked == []  # neither the names nor the flood reached the database
    refused = actions.start_class(None, "x" * 100_000, client="xsrf:t", address="198.51.100.9")
    assert refused[0] is None and refused[1].startswith("Too many tries from this network address")
    assert actions.start_class(None, "x" * 100_000, client="xsrf:t", address="192.0.2.1")[1] == (
        "Class name: 100,000 characters; at most 80."
    )
    assert asked == []


def test_the_teacher_is_warned_of_joins_faster_than_people_type_and_locks_from_the_warning(data, monkeypatch):
    clock = [8_000_000.0]
    monkeypatch.setattr(db, "now", lambda: clock[0])
    new = classes.create_class(data)
    link = teacher_link.check_teacher(data, new.code, new.teacher_token).join_key
    for i in range(limits.JOIN_BURST - 1):  # 24 joins in 4.8 s: no warning yet
        clock[0] += 0.2
        admission.join_class(data, new.code, f"Bot {i}", client=f"xsrf:{i}", link_key=link)
    at = open_linked_page(PAGE, {"code": new.code, "teacher": new.teacher_token})
    assert not [w for w in at.warning if "faster than people type" in w.value]
    clock[0] += 0.2
    admission.join_class(data, new.code, "Bot 24", client="xsrf:24", link_key=link)
    at.run()
    warned = [w.value for w in at.warning if "faster than people type" in w.value]
    assert warned and "25 joins in the last 5 s" in warned[0]
    at.button(key="cls_lock_joins_fast").click().run()
    assert not at.exception
    assert teacher_link.check_teacher(data, new.code, new.teacher_token).joins_locked
    assert not [w for w in at.warning if "faster than people type" in w.value]  # locked: the warning has done its work
    clock[0] += 10
    at.run()
    assert not [w for w in at.warning if "faster than people type" in w.value]


@pytest.mark.parametrize(
    ("peer", "headers", "trusted", "expected"),
    [
        (None, {"X-Forwarded-For": "203.0.113.7"}, "127.0.0.1,::1", "203.0.113.7"),  # HAProxy on loopback
        (None, {"Host": "localhost:8501"}, "", "127.0.0.1"),  # a browser on this machine (./run)
        (None, {"X-Forwarded-For": "203.0.113.7"}, "", "127.0.0.1"),  # loopback not trusted: the header is ignored
        (None, {}, "127.0.0.1,::1", ""),  # no connection at all (AppTest): unknown
        ("192.0.2.5", {"X-Forwarded-For": "203.0.113.7"}, "127.0.0.1,::1", "192.0.2.5"),  # not a proxy: its own
    ],
)
def test_the_address_behind_a_proxy_on_loopback(monkeypatch, peer, headers, trusted, expected):
    import streamlit as st

    from lab.views.live_class import database

    class Context:
        ip_address = peer

    Context.headers = headers
    monkeypatch.setattr(st, "context", Context())
    monkeypatch.setenv(keys.TRUSTED_PROXIES_ENV, trusted)
    assert database.client_address() == expected


def test_the_resume_link_answers_while_the_database_is_frozen(own_postgres, tmp_path, monkeypatch):
    """A frozen PostgreSQL (SIGSTOP: connections open, nothing answers): the Exercises resume link says within a few
    seconds that it cannot read the saved answers and offers the problems without them; after the thaw they come
    back. Before, the page waited for the database (59.9 s for a load in flight at the freeze)."""
    import time

    from lab.classroom import study
    from lab.classroom.db import make_engine
    from lab.teaching.exercises import Attempt

    monkeypatch.setenv("RESIDUAL_LAB_DATABASE_URL", own_postgres.url)
    monkeypatch.setenv("RESIDUAL_LAB_DATA", str(tmp_path))
    monkeypatch.setenv("RESIDUAL_LAB_DB_TIMEOUT_S", "1")
    engine = make_engine(own_postgres.url)
    token = study.new_study(engine)
    params = {"seed": "12", "count": "3", "level": "zeros"}
    study.save_attempt(engine, token, "12-zeros", 1, Attempt("1/2", True, 1))
    engine.dispose()
    page = "lab/views/pages/exercises.py"
    assert open_linked_page(page, {**params, "resume": token}).metric[0].value == "1 / 3"  # the page's engine ready
    own_postgres.freeze()
    try:
        began = time.monotonic()
        frozen = open_linked_page(page, {**params, "resume": token}, timeout=30)
        took = time.monotonic() - began
        said = " ".join(w.value for w in frozen.warning).replace("\\", "")
        assert not frozen.exception and "class database" in said and "not being saved" in said
        assert frozen.metric[0].value == "0 / 3" and frozen.text_input  # the problems, without the saved answer
        assert took < 15, took  # bounded by the gate's wait (1 s here), not by the database
    finally:
        own_postgres.thaw()
    assert open_linked_page(page, {**params, "resume": token}).metric[0].value == "1 / 3"


def _join(at, code: str, name: str):
    at.text_input(key="cls_join_code").set_value(code)
    at.text_input(key="cls_join_name").set_value(name)
    at.button(key="FormSubmitter:cls_join_form-Join").click().run()
    assert not at.exception
    return at


def test_a_join_written_after_the_page_stopped_waiting_gives_its_browser_the_seat(data, monkeypatch):
    """A Join the database answers late (a freeze that thaws): the page says it waits, then, once the seat is
    written, goes to it by itself: no seat nobody can use. Before, the browser never got its private link."""
    import threading
    import time

    new = classes.create_class(data)
    classes.open_activity(data, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    release, entered = threading.Event(), threading.Event()
    real = admission.join_class

    def held(*args, **kwargs):  # what a frozen database does to the join: it starts, then waits
        entered.set()
        release.wait(30)
        return real(*args, **kwargs)

    monkeypatch.setattr(admission, "join_class", held)
    monkeypatch.setenv("RESIDUAL_LAB_DB_TIMEOUT_S", "0.5")
    at = _join(open_linked_page(PAGE, {"code": new.code}), new.code, "Ann")
    assert entered.is_set() and "student" not in at.query_params
    said = " ".join(w.value for w in at.warning).replace("\\", "")
    assert "what you just sent waits for it" in said
    at.button(key="FormSubmitter:cls_join_form-Join").click().run()  # pressed again meanwhile: nothing is sent
    assert "still waiting for the class database: nothing new was sent" in " ".join(e.value for e in at.error)
    release.set()
    deadline = time.monotonic() + 10
    while time.monotonic() < deadline and not dashboard_names(data, new):
        time.sleep(0.05)
    time.sleep(0.2)
    at.run()  # the page's own look every second (redraw_when_done) runs it in a browser
    assert not at.exception
    token = at.query_params.get("student")
    assert token and dashboard_names(data, new) == ["Ann"]  # one seat, and this browser has it
    assert not [e for e in at.error]


def dashboard_names(engine, new) -> list[str]:
    from lab.classroom import dashboards

    return [s.name for s in dashboards.dashboard(engine, new.code, new.teacher_token).students]


def test_a_lost_database_never_says_nothing_was_saved_beside_a_call_that_waits():
    from lab.classroom.actions import DATABASE_DOWN, NOT_ANSWERING, PENDING
    from lab.views.live_class.common import lost_words

    for message in (DATABASE_DOWN, NOT_ANSWERING):
        assert "nothing was saved" in lost_words(message, pending=False)
        waiting = lost_words(message, pending=True)
        assert "nothing was saved" not in waiting and waiting.startswith("The class database")
        assert "waits for it" in PENDING  # what the page says of the call beside it


def _memory(at, name: str) -> dict:
    """The browser memory element ``name`` as the page drew it (its data), with its element for sending."""
    import json

    found = [e for e in at.get("bidi_component") if json.loads(e.proto.json).get("name") == name]
    return {"element": found[0], **json.loads(found[0].proto.json)} if found else {}


def _browser_sends(at, element, text: str):
    """What browser_memory's JavaScript sends when the tab held ``text``: one trigger, "stored"."""
    import json

    states = at._tree.get_widget_states()
    trigger = states.widgets.add()
    trigger.id = f"$$STREAMLIT_INTERNAL_KEY_{element.proto.id}__events"
    trigger.json_trigger_value = json.dumps([{"event": "stored", "value": text}])
    at._run(states)
    return at


def test_the_teacher_token_leaves_the_address_bar_and_a_reload_of_the_tab_opens_the_dashboard(data):
    import json

    from lab.views.live_class.teacher_memory import MEMORY_NAME

    new = classes.create_class(data)
    at = open_linked_page(PAGE, {"code": new.code, "teacher": new.teacher_token})
    assert not at.exception and at.metric and "teacher" not in at.query_params  # the page has it: the bar loses it
    assert at.query_params["code"] == new.code
    kept = _memory(at, MEMORY_NAME)
    assert json.loads(kept["keep"]) == [new.code, new.teacher_token] and kept["tab"] is True  # sessionStorage
    # a reload of ?code=C in the same tab: a new session, the join form first, then what the tab kept
    reload = open_linked_page(PAGE, {"code": new.code})
    assert not reload.metric and "Join" in [b.proto.label for b in reload.get("button")]
    _browser_sends(reload, _memory(reload, MEMORY_NAME)["element"], json.dumps([new.code, new.teacher_token]))
    assert not reload.exception
    assert [m.value for m in reload.metric][:1] == [new.code] and "teacher" not in reload.query_params
    # a text another page (or a script) put there: refused like any teacher link, then forgotten
    forged = open_linked_page(PAGE, {"code": new.code})
    _browser_sends(forged, _memory(forged, MEMORY_NAME)["element"], json.dumps([new.code, "forged-token"]))
    assert "This teacher link does not open a class" in " ".join(e.value for e in forged.error)
    assert _memory(forged, MEMORY_NAME)["keep"] == ""  # the tab forgets it
    forged.run()
    assert not forged.error and "Join" in [b.proto.label for b in forged.get("button")]
    for junk in ("not json", json.dumps(["X" * 100, "t"]), json.dumps({"a": 1})):  # crafted: ignored, no box
        other = open_linked_page(PAGE, {"code": new.code})
        _browser_sends(other, _memory(other, MEMORY_NAME)["element"], junk)
        assert not other.exception and not other.error and not other.metric


def test_a_megabyte_typed_into_a_box_is_cut_before_the_page_reads_it(data):
    """A crafted message can put any text into a text box's state: the widget guard (lab.views.patches) cuts it to
    MAX_TEXT characters before the page reads it, and the name's own check refuses it from its length."""
    from lab.views.patches.widget_guard import MAX_TEXT

    new = classes.create_class(data)
    at = open_linked_page(PAGE, {"code": new.code})
    at.text_input(key="cls_join_code").set_value(new.code)
    at.text_input(key="cls_join_name").set_value("x" * 1_048_576)
    at.button(key="FormSubmitter:cls_join_form-Join").click().run()
    assert not at.exception and "student" not in at.query_params
    assert len(at.session_state["cls_join_name"]) == MAX_TEXT == 20_000
    assert f"Your name: {MAX_TEXT:,} characters; at most 40." in " ".join(e.value for e in at.error).replace("\\", "")
