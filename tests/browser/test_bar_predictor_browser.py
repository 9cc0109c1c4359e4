"""The bar predictor (lab/views/ui/bar_predictor.py) in headless Chromium: a bar dragged with the mouse, tapped and
dragged by touch (a context with hasTouch: the browser's own pointer events), moved by the keyboard alone; the
worked example done by dragging alone; a phone in a class predicting by dragging, read on the dashboard.

Heights are read three ways: the bar's own aria-valuenow, the bound number box, and the value the server stored
(the link, which the page writes from its model; the class database, read on the teacher's dashboard). The
expected heights are the pixel positions' own arithmetic: a press at a fraction f of the column's height from its
bottom is the height f, snapped to 0.01."""

from __future__ import annotations

from urllib.parse import parse_qs, urlsplit

import pytest

from browserlib import PHONE, app_with_class_data, count_runs, goto, plotly_data, wait_for_dashboard, wait_idle


def bar(page, label: str):
    return page.get_by_role("slider", name=f"Your bar {label}", exact=True)


def column_point(page, label: str, height: float) -> tuple[float, float]:
    """The page coordinates of ``height`` (0 to 1) on the column of bar ``label`` (scrolled into view)."""
    bar(page, label).scroll_into_view_if_needed()
    box = bar(page, label).bounding_box()
    return box["x"] + box["width"] / 2, box["y"] + box["height"] * (1 - height)


def drag(page, label: str, start: float, end: float) -> None:
    """Press the column at ``start``, move to ``end`` in steps (as a hand does), release."""
    x, y0 = column_point(page, label, start)
    _, y1 = column_point(page, label, end)
    page.mouse.move(x, y0)
    page.mouse.down()
    page.mouse.move(x, y1, steps=8)
    page.mouse.up()
    wait_idle(page)


def link_prediction(page) -> list[float]:
    return [float(v) for v in parse_qs(urlsplit(page.url).query)["pred"][0].split(",")]


def open_worked_example(page, base: str) -> None:
    goto(page, f"{base}/binomial-lab?lab_p=0.75&n=1")
    bar(page, "r(B)").wait_for()


def test_mouse_drag_sets_the_box_and_the_stored_value(page, app_url):
    open_worked_example(page, app_url)
    drag(page, "r(B)", 0.0, 0.6)
    assert bar(page, "r(B)").get_attribute("aria-valuenow") == "0.60"
    assert bar(page, "r(B)").get_attribute("aria-valuetext") == "r(B), 0.60"
    assert page.get_by_role("spinbutton", name="Predict B").input_value() == "0.60"
    page.wait_for_url("**pred=**")
    assert link_prediction(page) == [0.6, 0.0]  # what the server stored in the page's model
    # a press on a column (no drag) sets that height
    x, y = column_point(page, "r(C)", 0.25)
    page.mouse.click(x, y)
    wait_idle(page)
    assert page.get_by_role("spinbutton", name="Predict C").input_value() == "0.25"
    page.wait_for_function("() => new URLSearchParams(location.search).get('pred') === '0.6,0.25'")
    assert page.locator(".rl-bp-sum").inner_text() == "Your bars add up to 0.85."
    # typing updates the bar
    box = page.get_by_role("spinbutton", name="Predict C")
    box.fill("0.4")
    box.press("Enter")
    wait_idle(page)
    assert bar(page, "r(C)").get_attribute("aria-valuetext") == "r(C), 0.40"
    assert page.locator(".rl-bp-sum").inner_text() == "Your bars add up to 1.00."


def test_one_drag_is_one_run(page, app_url):
    """Sent once, on release: a drag across many pixels makes one script run, not one per pointer move. Runs are
    counted on the WebSocket (browserlib.count_runs). (At n = 5: at the worked example the first bar set also ticks
    the guide's step, which redraws the page once more.)"""
    runs = count_runs(page)
    goto(page, f"{app_url}/binomial-lab")
    bar(page, "P(2)").wait_for()
    before = len(runs)
    assert before >= 1  # the page's own first run was seen: the count is live
    x, y0 = column_point(page, "P(2)", 0.1)
    _, y1 = column_point(page, "P(2)", 0.9)
    page.mouse.move(x, y0)
    page.mouse.down()
    page.mouse.move(x, y1, steps=40)
    page.wait_for_timeout(400)
    assert len(runs) == before  # still held: nothing sent
    page.mouse.up()
    deadline = 30_000  # the release's run (late on a busy machine)
    while len(runs) == before and deadline > 0:
        page.wait_for_timeout(100)
        deadline -= 100
    wait_idle(page)
    page.wait_for_timeout(300)
    assert len(runs) == before + 1
    assert page.get_by_role("spinbutton", name="Predict P(2)").input_value() == "0.90"


def touch(cdp, kind: str, x: float, y: float) -> None:
    points = [] if kind == "touchEnd" else [{"x": x, "y": y}]
    cdp.send("Input.dispatchTouchEvent", {"type": kind, "touchPoints": points})


def test_touch_tap_and_drag(browser, app_url):
    context = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    page = context.new_page()
    try:
        open_worked_example(page, app_url)
        bar(page, "r(B)").scroll_into_view_if_needed()
        x, y = column_point(page, "r(B)", 0.3)
        page.touchscreen.tap(x, y)  # a tap away from the bar's top picks the bar, and moves nothing
        page.wait_for_timeout(300)
        assert "rl-bp-picked" in bar(page, "r(B)").get_attribute("class")
        assert page.get_by_role("spinbutton", name="Predict B").input_value() == "0.00"
        page.touchscreen.tap(x, y)  # on the picked bar, a tap sets its height
        wait_idle(page)
        assert page.get_by_role("spinbutton", name="Predict B").input_value() == "0.30"
        cdp = context.new_cdp_session(page)
        x, y0 = column_point(page, "r(C)", 0.05)
        _, y1 = column_point(page, "r(C)", 0.7)
        touch(cdp, "touchStart", x, y0)
        for k in range(1, 9):
            touch(cdp, "touchMove", x, y0 + (y1 - y0) * k / 8)
        touch(cdp, "touchEnd", x, y1)
        wait_idle(page)
        assert page.get_by_role("spinbutton", name="Predict C").input_value() == "0.70"
        page.wait_for_function("() => new URLSearchParams(location.search).get('pred') === '0.3,0.7'")
    finally:
        context.close()


def focused(page) -> dict:
    return page.evaluate(
        """() => { const a = document.activeElement;
             return {label: a.getAttribute('aria-label'), text: a.getAttribute('aria-valuetext'),
                     now: a.getAttribute('aria-valuenow'), role: a.getAttribute('role')}; }"""
    )


def test_keyboard_only(page, app_url):
    open_worked_example(page, app_url)
    page.get_by_role("button", name="Reveal", exact=True).focus()  # the control just before the bars
    expected = ["r(B), 0.00"]
    for _ in range(10):
        page.keyboard.press("Tab")
        if focused(page)["role"] == "slider":
            break
    now = focused(page)
    assert now["label"] == "Your bar r(B)" and now["text"] == expected[0]
    sum_line = page.locator(".rl-bp-sum")
    assert sum_line.get_attribute("aria-live") == "polite"
    for key, text, total in (
        ("ArrowUp", "r(B), 0.01", "0.01"),
        ("ArrowRight", "r(B), 0.02", "0.02"),
        ("PageUp", "r(B), 0.12", "0.12"),
        ("ArrowDown", "r(B), 0.11", "0.11"),
        ("End", "r(B), 1.00", "1.00"),
        ("PageDown", "r(B), 0.90", "0.90"),
        ("Home", "r(B), 0.00", "0.00"),
        ("PageUp", "r(B), 0.10", "0.10"),
    ):
        page.keyboard.press(key)
        wait_idle(page)
        now = focused(page)  # focus stays on the bar after the run the release sent
        assert now["label"] == "Your bar r(B)" and now["text"] == text, (key, now)
        assert sum_line.inner_text() == f"Your bars add up to {total}."
    assert page.get_by_role("spinbutton", name="Predict B").input_value() == "0.10"
    page.keyboard.press("Tab")
    assert focused(page)["label"] == "Your bar r(C)"
    page.keyboard.press("PageUp")
    wait_idle(page)
    assert focused(page)["text"] == "r(C), 0.10"
    page.wait_for_function("() => new URLSearchParams(location.search).get('pred') === '0.1,0.1'")
    # the focus ring: 3 px, near black on white
    ring = page.evaluate(
        "() => { const s = getComputedStyle(document.activeElement); return [s.outlineStyle, s.outlineWidth]; }"
    )
    assert ring == ["solid", "3px"]


def steps_done(page) -> int:
    guide = page.locator("[data-testid=stMarkdownContainer]", has_text="1. Start from a clean lab").last
    return guide.inner_text().count("— done")


def test_worked_example_by_dragging_alone(page, app_url):
    goto(page, f"{app_url}/binomial-lab?lab_p=0.75&n=1&reset=1")
    assert steps_done(page) == 2  # clean, and lab success p = 0.75 with n = 1
    drag(page, "r(B)", 0.0, 0.75)
    assert steps_done(page) == 3  # a bar set: the guide ticks its predict step
    drag(page, "r(C)", 0.0, 0.25)
    page.get_by_role("button", name="Reveal", exact=True).click()
    wait_idle(page)
    assert steps_done(page) == 4
    assert page.get_by_role("spinbutton", name="Predict B").input_value() == "0.75"
    # dragged to the exact bars 3/4 and 1/4: the distance from them is 0
    metric = page.locator("[data-testid=stMetric]", has_text="distance").locator("[data-testid=stMetricValue]")
    assert metric.inner_text() == "0"


@pytest.fixture(scope="module")
def class_app(tmp_path_factory):
    data = tmp_path_factory.mktemp("classdata")
    with app_with_class_data(data) as url:
        yield url


def test_a_phone_in_a_class_predicts_by_dragging(browser, class_app, screenshot_dir):
    teacher_ctx = browser.new_context(viewport={"width": 1280, "height": 900})
    teacher = teacher_ctx.new_page()
    phone_ctx = browser.new_context(viewport=PHONE, has_touch=True, is_mobile=True)
    phone = phone_ctx.new_page()
    try:
        goto(teacher, f"{class_app}/class")
        teacher.get_by_role("button", name="Start a class").click()
        wait_idle(teacher)
        wait_for_dashboard(teacher)
        code = (
            teacher.locator("[data-testid=stMetric]", has_text="Class code")
            .locator("[data-testid=stMetricValue]")
            .inner_text()
        )
        teacher.get_by_role("button", name="Open for the class").click()
        wait_idle(teacher)
        goto(phone, f"{class_app}/class?code={code}")
        phone.get_by_role("textbox", name="Your name").fill("Dee")
        phone.get_by_role("button", name="Join").click()
        phone.wait_for_url("**student=**")
        wait_idle(phone)
        bar(phone, "r(B)").scroll_into_view_if_needed()
        cdp = phone_ctx.new_cdp_session(phone)
        for label, height in (("r(B)", 0.65), ("r(C)", 0.35)):
            x, y0 = column_point(phone, label, 0.02)
            _, y1 = column_point(phone, label, height)
            touch(cdp, "touchStart", x, y0)
            for k in range(1, 7):
                touch(cdp, "touchMove", x, y0 + (y1 - y0) * k / 6)
            touch(cdp, "touchEnd", x, y1)
            wait_idle(phone)
        assert phone.get_by_role("textbox", name="Predict r(B)").input_value() == "0.65"
        assert phone.get_by_role("textbox", name="Predict r(C)").input_value() == "0.35"
        phone.screenshot(path=str(screenshot_dir / "class-student-bars-390.png"))
        phone.get_by_role("button", name="Submit").click()
        wait_idle(phone)
        assert "Saved at" in phone.locator("[data-testid=stAlertContentSuccess]").inner_text()
        assert "0.65 for r(B), 0.35 for r(C)" in phone.inner_text("body")
        # the dashboard follows by itself: one prediction, with these values
        teacher.wait_for_function(
            "() => [...document.querySelectorAll('[data-testid=stMetric]')].some(m => m.innerText.includes('1 of 1'))",
            timeout=15_000,
        )
        wait_idle(teacher, started_timeout=50)
        traces = next(t for t in plotly_data(teacher) if any(trace["name"] == "predictions" for trace in t))
        predictions = [t["y"] for t in traces if t["name"] == "predictions"]
        assert predictions == [[0.65], [0.35]]
    finally:
        phone_ctx.close()
        teacher_ctx.close()
