"""A student's phone in headless Chromium, where AppTest cannot see: what changed comes into view by itself (a new
round, the reveal), Submit is disabled and says why at the reveal without a reload, and a vertical swipe over eight
bars scrolls the page and leaves the bars as they were."""

from __future__ import annotations

import pytest

from browserlib import app_and_class_engine, goto, wait_idle
from lab.classroom import admission, classes

PHONE = {"width": 390, "height": 844}
CLOSED = "Your teacher has revealed the answer: this vote is closed, and answers can no longer change."
TOP_IN_VIEW_JS = """(text) => {
  const el = [...document.querySelectorAll('p, strong, span')].find(e => e.textContent.includes(text));
  if (!el) return null;
  const box = el.getBoundingClientRect();
  return [box.top, box.bottom, window.innerHeight];
}"""


@pytest.fixture(scope="module")
def phone_app(tmp_path_factory):
    with app_and_class_engine(tmp_path_factory.mktemp("phone")) as app:
        yield app


def open_phone(browser, base: str, code: str, token: str):
    page = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True).new_page()
    goto(page, f"{base}/class?code={code}&student={token}")
    return page


def phone_that_voted(browser, base: str, engine, class_name: str, student: str):
    """A class on the worked example and a student's phone that submitted 0.5, 0.5: (the class, their id, the page)."""
    new = classes.create_class(engine, class_name)
    classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    token = admission.join_class(engine, new.code, student).student_token
    page = open_phone(browser, base, new.code, token)
    page.get_by_role("textbox", name="Predict r(B)").fill("0.5")
    page.get_by_role("textbox", name="Predict r(C)").fill("0.5")
    page.get_by_role("button", name="Submit").click()
    wait_idle(page)
    return new, token, page


def in_view(page, text: str, timeout_s: float = 10) -> list:
    """Where ``text`` is once it is on the screen (top, bottom, window height), waiting up to ``timeout_s``."""
    place = None
    for _ in range(int(timeout_s * 4)):
        page.wait_for_timeout(250)
        place = page.evaluate(TOP_IN_VIEW_JS, text)
        if place and 0 <= place[0] and place[1] <= place[2]:
            return place
    raise AssertionError(f"{text!r} is not on the screen: {place}")


@pytest.mark.browser
def test_a_new_round_and_the_reveal_come_into_view_and_the_reveal_closes_submit(browser, phone_app, screenshot_dir):
    base, engine = phone_app
    new, token, page = phone_that_voted(browser, base, engine, "Phones", "Ann")
    page.evaluate("window.scrollTo(0, 0); document.querySelector('[data-testid=stMain]').scrollTo(0, 0)")
    page.evaluate("document.activeElement && document.activeElement.blur()")  # nothing that takes typing has focus
    classes.vote_again(engine, new.code, new.teacher_token)
    in_view(page, "Round 2: vote again.")
    page.screenshot(path=str(screenshot_dir / "class-phone-round-2-in-view.png"))
    page.get_by_role("button", name="Submit").focus()
    classes.reveal(engine, new.code, new.teacher_token)
    in_view(page, "The exact answer")
    submit = page.get_by_role("button", name="Submit")
    assert submit.is_disabled()
    assert page.get_by_text(CLOSED).is_visible()
    assert page.get_by_role("textbox", name="Predict r(B)").is_disabled()
    # focus was on Submit, now disabled: it went to the reason, not to the page's body
    assert page.evaluate("document.activeElement.textContent") == CLOSED
    assert submit.get_attribute("aria-describedby") == page.get_by_text(CLOSED).get_attribute("id")
    page.screenshot(path=str(screenshot_dir / "class-phone-revealed-in-view.png"))
    page.context.close()


# the elements from the one under (x, y) up to the page whose touch-action forbids a vertical pan (none expected)
PANS_JS = """([x, y]) => {
  const stops = [];
  for (let el = document.elementFromPoint(x, y); el; el = el.parentElement) {
    const action = getComputedStyle(el).touchAction;
    if (!["auto", "pan-y", "manipulation"].some((ok) => action.split(" ").includes(ok))) {
      stops.push(`${el.tagName}.${el.className}: ${action}`);
    }
  }
  return stops;
}"""
VALUES_JS = "() => [...document.querySelectorAll('.rl-bp-col')].map(c => c.getAttribute('aria-valuenow'))"
BOXES_JS = "() => [...document.querySelectorAll('.rl-bp-box input')].map(b => b.value)"


def touch_drag(cdp, x: float, y: float, dy: float, steps: int = 8) -> None:
    """A finger put down at (x, y), moved by ``dy`` pixels in ``steps``, and lifted (raw touch events)."""
    cdp.send("Input.dispatchTouchEvent", {"type": "touchStart", "touchPoints": [{"x": x, "y": y}]})
    for k in range(1, steps + 1):
        point = {"x": x, "y": y + dy * k / steps}
        cdp.send("Input.dispatchTouchEvent", {"type": "touchMove", "touchPoints": [point]})
    cdp.send("Input.dispatchTouchEvent", {"type": "touchEnd", "touchPoints": []})


@pytest.mark.browser
def test_a_swipe_over_eight_bars_scrolls_and_only_the_top_or_a_picked_bar_moves(browser, phone_app, screenshot_dir):
    base, engine = phone_app
    new = classes.create_class(engine, "Swipes")
    classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "eight-words"})
    token = admission.join_class(engine, new.code, "Ann").student_token
    page = open_phone(browser, base, new.code, token)
    cols = page.locator(".rl-bp-col")
    assert cols.count() == 8
    cols.nth(3).scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    cdp = page.context.new_cdp_session(page)
    before, boxes = page.evaluate(VALUES_JS), page.evaluate(BOXES_JS)
    box = cols.nth(3).bounding_box()
    # a vertical swipe from the middle of a column: the browser may pan the page there (touch-action, from the element
    # under the finger up to the page's scroller), and the swipe's touch events move no bar
    x, y = box["x"] + box["width"] / 2, box["y"] + box["height"] / 2
    assert page.evaluate(PANS_JS, [x, y]) == [], "something under the finger stops the page from scrolling"
    touch_drag(cdp, x, y, 180)
    page.wait_for_timeout(300)
    assert page.evaluate(VALUES_JS) == before and page.evaluate(BOXES_JS) == boxes
    # a drag that starts on the bar's top moves it
    cols.nth(3).scroll_into_view_if_needed()
    page.wait_for_timeout(300)
    box = cols.nth(3).bounding_box()
    foot = box["y"] + box["height"] - 4
    touch_drag(cdp, box["x"] + box["width"] / 2, foot, -box["height"] / 2)
    page.wait_for_timeout(300)
    after = page.evaluate(VALUES_JS)
    assert float(after[3]) > 0.3 and after[:3] + after[4:] == before[:3] + before[4:], after
    # a tap on another column picks its bar without moving it; a drag anywhere on it then moves it
    other = cols.nth(5).bounding_box()
    page.touchscreen.tap(other["x"] + other["width"] / 2, other["y"] + other["height"] / 3)
    page.wait_for_timeout(300)
    assert "rl-bp-picked" in cols.nth(5).get_attribute("class")
    assert page.evaluate(VALUES_JS)[5] == before[5]
    touch_drag(cdp, other["x"] + other["width"] / 2, other["y"] + other["height"] * 0.6, -other["height"] * 0.3)
    page.wait_for_timeout(300)
    assert float(page.evaluate(VALUES_JS)[5]) > 0.5
    page.screenshot(path=str(screenshot_dir / "class-phone-eight-bars-touch.png"))
    page.context.close()


@pytest.mark.browser
def test_a_joined_phone_that_opens_the_apps_root_finds_its_class_again(browser, phone_app):
    base, engine = phone_app
    new = classes.create_class(engine, "Root")
    classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    goto(page, f"{base}/class?code={new.code}")
    page.get_by_role("textbox", name="Your name").fill("Eve")
    page.get_by_role("button", name="Join", exact=True).click()
    page.wait_for_url("**student=**")
    wait_idle(page)
    student_url = page.url
    goto(page, f"{base}/")  # the app's root, in the same tab (a new session of the app)
    back = page.get_by_role("link", name="Back to your class")
    back.wait_for(timeout=10_000)
    assert f"Your class {new.code} is in progress" in page.inner_text("body")  # the class only, as before
    back.click()
    page.wait_for_url("**student=**")
    assert page.url.split("?")[1] == student_url.split("?")[1]
    wait_idle(page)
    assert page.get_by_role("button", name="Submit").is_visible()
    other = context.new_page()  # a new tab (the next person on a shared computer): nothing of the class
    goto(other, f"{base}/")
    other.wait_for_timeout(1500)
    assert "in progress" not in other.inner_text("body") and "Start here" in other.inner_text("body")
    other.close()
    classes.end_class(engine, new.code, new.teacher_token)
    goto(page, f"{base}/")  # after the class: nothing offered, and the browser forgets it
    page.wait_for_timeout(1500)
    assert "Back to your class" not in page.inner_text("body")
    assert page.evaluate("sessionStorage.getItem('residual-lab-class')") is None
    context.close()


@pytest.mark.browser
def test_a_submit_sent_after_the_reveal_is_refused_by_name_and_not_in_the_csv(browser, phone_app):
    """The phone has not heard of the reveal (its version checks are held back here): its Submit reaches the server
    after the reveal, is refused by name, and the results file has only the answer made before."""
    import csv
    import io

    from lab.classroom import export

    base, engine = phone_app
    new, token, page = phone_that_voted(browser, base, engine, "Late", "Fay")
    page.route("**/_class_version*", lambda route: route.abort())  # the page no longer hears of the teacher
    page.wait_for_timeout(3500)  # (a check already held by the server ends: answered at most 2 s later)
    classes.reveal(engine, new.code, new.teacher_token)
    page.wait_for_timeout(1500)
    page.get_by_role("textbox", name="Predict r(B)").fill("0.75")
    page.get_by_role("textbox", name="Predict r(C)").fill("0.25")
    page.get_by_role("button", name="Submit").click()
    wait_idle(page)
    said = page.locator("[data-testid=stAlertContentError]").inner_text()
    assert "Your teacher has revealed the answer: this activity is closed, and this answer was not saved." in said
    rows = list(csv.DictReader(io.StringIO(export.class_results_csv(engine, new.code, new.teacher_token))))
    assert [(r["value 1 answer"], r["value 2 answer"]) for r in rows] == [("1/2", "1/2")]
    page.context.close()
