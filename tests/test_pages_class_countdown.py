"""The vote's countdown on the class screens in AppTest: the teacher opens an activity with one and adds time; the
dashboard, the projector and the phones draw it (the seconds left, counted down in the browser); once it has ended
a phone's boxes are disabled, says why, and a Submit sent anyway is refused by name and not saved."""

from __future__ import annotations

import json

from pagetest import markdown_text, open_linked_page, plain, predictors, send_trigger, teacher_token
from sqlalchemy import text

from lab.classroom import admission, answers, classes, db, versions

PAGE = "lab/views/live_class/classroom.py"
PROJECTOR = "lab/views/live_class/projector.py"


def countdowns(at) -> list[dict]:
    """The data of each countdown on the page (lab.views.ui.countdown), in page order."""
    return [
        json.loads(e.proto.json) for e in at.get("bidi_component") if e.proto.component_name.endswith("countdown")
    ]


def end_the_countdown(engine) -> None:
    """The countdown's end, a second ago (as if its time had passed)."""
    with engine.begin() as conn:
        conn.execute(text("UPDATE activities SET closes_at = :at"), {"at": db.now() - 1})


def test_the_teacher_opens_a_timed_vote_and_adds_time(data):
    at = open_linked_page(PAGE)
    at.text_input(key="cls_start_name").set_value("Period 3")
    at.button(key="FormSubmitter:cls_start_form-Start a class").click().run()
    code, token = at.query_params["code"], teacher_token(at)
    assert at.selectbox(key="cls_timer").options == ["Off", "30 s", "60 s", "2 min"]
    at.selectbox(key="cls_timer").set_value(60)
    at.button(key="cls_open").click().run()
    assert not at.exception
    (drawn,) = countdowns(at)
    assert 55_000 <= drawn["left_ms"] <= 60_000 and drawn["rerun"]
    at.button(key="cls_add_time").click().run()
    (drawn,) = countdowns(at)
    assert 85_000 <= drawn["left_ms"] <= 90_000
    at.button(key="cls_stop_countdown").click().run()
    assert not countdowns(at)
    assert [b.label for b in at.button if b.key == "cls_add_time"] == ["Start a 30 s countdown"]
    ann = admission.join_class(data, code, "Ann").student_token
    assert answers.student_state(data, code, ann).activity.seconds_left() is None and token


def test_a_phone_counts_down_then_the_vote_is_locked_and_a_late_submit_is_refused(data):
    new = classes.create_class(data, "Period 3")
    classes.open_activity(data, new.code, new.teacher_token, "predict", {"source": "worked-example"}, 30)
    token = admission.join_class(data, new.code, "Ann").student_token
    at = open_linked_page(PAGE, {"code": new.code, "student": token})
    (drawn,) = countdowns(at)
    assert 25_000 <= drawn["left_ms"] <= 30_000 and drawn["label"] == "Time left to vote:"
    assert not predictors(at)["cls_bars_1"]["disabled"]
    end_the_countdown(data)
    # a Submit from the page drawn before the end (it had not run again yet): refused by name, nothing saved
    send_trigger(at, "cls_bars_1", "submit", ["0.75", "0.25"])
    assert not at.exception
    assert any("The time for this vote is up" in plain(e.value) for e in at.error)
    assert answers.student_state(data, new.code, token).prediction is None
    at = open_linked_page(PAGE, {"code": new.code, "student": token})
    assert not countdowns(at)
    assert predictors(at)["cls_bars_1"]["disabled"]
    assert predictors(at)["cls_bars_1"]["closed"] == "Time is up: the vote is locked, and answers can no longer change."
    send_trigger(at, "cls_bars_1", "submit", ["0.75", "0.25"])  # sent to disabled boxes: ignored
    assert answers.student_state(data, new.code, token).prediction is None


def test_the_projector_shows_the_countdown_and_then_that_the_vote_is_locked(data):
    new = classes.create_class(data, "Period 3")
    classes.open_activity(data, new.code, new.teacher_token, "predict", {"source": "worked-example"}, 120)
    key = versions.stored_class_version(data, new.code).display_key
    at = open_linked_page(PROJECTOR, {"code": new.code, "display": key})
    (drawn,) = countdowns(at)
    assert 115_000 <= drawn["left_ms"] <= 120_000
    end_the_countdown(data)
    at = open_linked_page(PROJECTOR, {"code": new.code, "display": key})
    (drawn,) = countdowns(at)
    assert drawn["left_ms"] == 0 and not drawn["rerun"]  # says "Time is up", and never reruns the page again
    assert "3/4" not in markdown_text(at)
