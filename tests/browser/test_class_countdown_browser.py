"""The vote's countdown in headless Chromium (what AppTest cannot see: the time counted down in the browser, and the
page that runs again by itself when it ends). A phone and the projector show the time left; at zero both say the
vote is locked without a reload, the phone's Submit is disabled, and nothing more is saved."""

from __future__ import annotations

import re
import time

import pytest
from sqlalchemy import text

from browserlib import DESKTOP, app_and_class_engine, goto, screenshot_full, wait_idle
from lab.classroom import admission, answers, classes, db, versions

PHONE = {"width": 390, "height": 844}
LEFT_S = 12  # the countdown's time left when the pages open (each takes a few seconds to open)


@pytest.mark.browser
def test_the_countdown_runs_out_and_locks_the_vote_on_the_phone_and_the_projector(browser, tmp_path, screenshot_dir):
    with app_and_class_engine(tmp_path) as (base, engine):
        new = classes.create_class(engine, "Period 3")
        classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"}, 30)
        token = admission.join_class(engine, new.code, "Ann").student_token
        key = versions.stored_class_version(engine, new.code).display_key
        goto(browser.new_context(viewport=PHONE).new_page(), f"{base}/class")  # the server warmed up
        with engine.begin() as conn:  # a countdown near its end (30 s would make the test wait 30 s)
            conn.execute(text("UPDATE activities SET closes_at = :at"), {"at": db.now() + LEFT_S})
        phone = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True).new_page()
        goto(phone, f"{base}/class?code={new.code}&student={token}")
        projector = browser.new_context(viewport=DESKTOP).new_page()
        goto(projector, f"{base}/projector?code={new.code}&display={key}")
        for page in (phone, projector):
            shown = page.get_by_role("timer").inner_text()
            assert re.fullmatch(r"Time left to vote: 0:(0[1-9]|1[0-2])", shown), shown
        phone.get_by_role("textbox", name="Predict r(B)").fill("0.75")
        phone.get_by_role("textbox", name="Predict r(C)").fill("0.25")
        phone.get_by_role("button", name="Submit").click()
        wait_idle(phone)
        assert "Saved at" in phone.locator("[data-testid=stAlertContentSuccess]").inner_text()
        screenshot_full(phone, screenshot_dir / "class-countdown-phone.png")
        # the end: both pages say so by themselves (the countdown reruns its part within a second of zero)
        started = time.monotonic()
        phone.get_by_text("Time is up: the vote is locked, and answers can no longer change.").wait_for(
            timeout=(LEFT_S + 10) * 1000
        )
        told_after = time.monotonic() - started
        projector.get_by_role("timer").filter(has_text="Time is up: the vote is locked.").wait_for(timeout=10_000)
        # and it ran again by itself: its live region says so too
        projector.locator("[data-live=status]", has_text="Time is up: the vote is locked.").wait_for(
            state="attached", timeout=10_000
        )
        assert told_after <= LEFT_S + 4, told_after
        wait_idle(phone)
        assert phone.get_by_role("button", name="Submit").is_disabled()
        assert phone.get_by_role("textbox", name="Predict r(B)").is_disabled()
        screenshot_full(phone, screenshot_dir / "class-countdown-phone-ended.png")
        projector.screenshot(path=str(screenshot_dir / "class-countdown-projector-ended.png"))
        # the saved answer is the one made in time; nothing after the end changes it
        assert answers.student_state(engine, new.code, token).prediction is not None
        with pytest.raises(Exception, match="time for this vote is up"):
            answers.submit_prediction(engine, new.code, token, 1, ["0.1", "0.9"], round_number=1)
