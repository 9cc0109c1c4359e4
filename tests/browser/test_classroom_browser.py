"""A live class in headless Chromium: one teacher and three students, each in their own browser context.

join -> submit -> the dashboard shows 3 of 3 -> reveal -> every student sees the exact answer without a
reload. The server uses a fresh data folder (RESIDUAL_LAB_DATA), so the class database starts empty."""

from __future__ import annotations

import os

import pytest

from browserlib import DESKTOP, ROOT, goto, plotly_data, screenshot_full, start_streamlit, stop_process, wait_idle

GUESSES = {"Ann": ("0.75", "0.25"), "Bob": ("0.3", "0.1"), "Cat": ("0.6", "0.4")}


@pytest.fixture(scope="module")
def class_app(tmp_path_factory):
    data = tmp_path_factory.mktemp("classdata")
    old = os.environ.get("RESIDUAL_LAB_DATA")
    os.environ["RESIDUAL_LAB_DATA"] = str(data)
    try:
        proc, url = start_streamlit("server.py", cwd=ROOT)
    finally:
        if old is None:
            os.environ.pop("RESIDUAL_LAB_DATA", None)
        else:
            os.environ["RESIDUAL_LAB_DATA"] = old
    yield url
    stop_process(proc)


def class_chart(page) -> list[dict]:
    """The traces of the class's predictions chart (the page also draws the question's p / q chart)."""
    return next(traces for traces in plotly_data(page) if any(t["name"] == "predictions" for t in traces))


def metric(page, label: str) -> str:
    return page.locator("[data-testid=stMetric]", has_text=label).locator("[data-testid=stMetricValue]").inner_text()


@pytest.mark.browser
def test_teacher_and_three_students(browser, class_app, screenshot_dir):
    teacher_ctx = browser.new_context(viewport=DESKTOP)
    teacher = teacher_ctx.new_page()
    goto(teacher, f"{class_app}/class")
    teacher.get_by_role("textbox", name="Class name (optional)").fill("Period 3")
    teacher.get_by_role("button", name="Start a class").click()
    wait_idle(teacher)
    teacher.wait_for_url("**teacher=**")
    code = metric(teacher, "Class code")
    assert len(code) == 6
    assert "only way back to this dashboard" in teacher.locator("[data-testid=stAlert]").first.inner_text()
    teacher.get_by_role("button", name="Open for the class").click()
    wait_idle(teacher)

    students = {}
    for name, (b, c) in GUESSES.items():
        ctx = browser.new_context(viewport={"width": 900, "height": 900})
        page = ctx.new_page()
        goto(page, f"{class_app}/class?code={code}")
        page.get_by_role("textbox", name="Your name").fill(name)
        page.get_by_role("button", name="Join").click()
        page.wait_for_url("**student=**")
        wait_idle(page)
        page.get_by_role("spinbutton", name="Predict r(B)").fill(b)
        page.get_by_role("spinbutton", name="Predict r(C)").fill(c)
        page.get_by_role("button", name="Submit").click()
        wait_idle(page)
        assert "Saved at" in page.locator("[data-testid=stAlertContentSuccess]").inner_text()
        students[name] = (ctx, page)

    # the dashboard refreshes itself (every 2 s): 3 of 3 without a reload
    teacher.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=stMetric]')].some(m => m.innerText.includes('3 of 3'))",
        timeout=15_000,
    )
    wait_idle(teacher, started_timeout=50)
    traces = class_chart(teacher)
    predictions = [t for t in traces if t["name"] == "predictions"]
    assert sorted(predictions[0]["y"]) == [0.3, 0.6, 0.75] and sorted(predictions[1]["y"]) == [0.1, 0.25, 0.4]
    assert not [t for t in traces if t["name"] == "exact answer"]  # nothing revealed yet
    assert "revealed by your teacher" not in students["Ann"][1].inner_text("body")

    teacher.get_by_role("button", name="Reveal to class").click()
    wait_idle(teacher)
    teacher.wait_for_function(
        "() => [...document.querySelectorAll('.js-plotly-plot')]"
        ".some(p => p.data.some(t => t.name === 'exact answer'))",
        timeout=15_000,
    )
    exact = {y for t in class_chart(teacher) if t["name"] == "exact answer" for y in t["y"] if y is not None}
    assert exact == {0.75, 0.25}
    body = teacher.inner_text("body")
    assert "A third of the class got both bars within 0.05 of the exact answer" in body  # Ann only: 1 of 3
    screenshot_full(teacher, screenshot_dir / "class-teacher-revealed-1280.png")

    for name, (_ctx, page) in students.items():  # each page follows the teacher without a reload
        page.get_by_text("revealed by your teacher", exact=False).first.wait_for(timeout=15_000)
        wait_idle(page, started_timeout=50)
        table = page.locator("[data-testid=stMarkdown] table").last.inner_text()
        assert "3/4" in table and "1/4" in table
        if name == "Bob":
            screenshot_full(page, screenshot_dir / "class-student-revealed-900.png")
    # a second change, followed by pages that redrew themselves once already: the teacher locks
    teacher.get_by_role("button", name="Lock").click()
    wait_idle(teacher)
    for _ctx, page in students.values():
        page.wait_for_function(
            "() => [...document.querySelectorAll('button')].some(b => b.innerText.trim() === 'Submit' && b.disabled)",
            timeout=15_000,
        )
    # a reload resumes the student's page with the saved prediction
    ann = students["Ann"][1]
    goto(ann, ann.url)
    assert ann.get_by_role("spinbutton", name="Predict r(B)").input_value() == "0.75"
    for ctx, _page in students.values():
        ctx.close()
    teacher_ctx.close()


@pytest.mark.browser
def test_kill_9_keeps_every_saved_answer_and_students_resume(browser, tmp_path):
    """kill -9 the server during a class and start it again: what a student saw Saved is on the dashboard,
    and the student's URL resumes their page with the answer."""
    import signal

    from browserlib import free_port
    from lab.classroom import store
    from lab.classroom.db import make_engine

    old = os.environ.get("RESIDUAL_LAB_DATA")
    os.environ["RESIDUAL_LAB_DATA"] = str(tmp_path)
    port = free_port()
    try:
        proc, url = start_streamlit("server.py", cwd=ROOT, port=port)
        engine = make_engine(f"sqlite:///{tmp_path / 'classroom.db'}")
        new = store.create_class(engine, "restart")
        store.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
        ctx = browser.new_context(viewport=DESKTOP)
        page = ctx.new_page()
        goto(page, f"{url}/class?code={new.code}")
        page.get_by_role("textbox", name="Your name").fill("Ann")
        page.get_by_role("button", name="Join").click()
        page.wait_for_url("**student=**")
        wait_idle(page)
        page.get_by_role("spinbutton", name="Predict r(B)").fill("0.65")
        page.get_by_role("spinbutton", name="Predict r(C)").fill("0.35")
        page.get_by_role("button", name="Submit").click()
        wait_idle(page)
        assert "Saved at" in page.locator("[data-testid=stAlertContentSuccess]").inner_text()
        student_url = page.url
        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        proc, url = start_streamlit("server.py", cwd=ROOT, port=port)
        goto(page, student_url)
        assert page.get_by_role("spinbutton", name="Predict r(B)").input_value() == "0.65"
        assert page.get_by_role("spinbutton", name="Predict r(C)").input_value() == "0.35"
        teacher = ctx.new_page()
        goto(teacher, f"{url}/class?code={new.code}&teacher={new.teacher_token}")
        assert metric(teacher, "Submitted") == "1 of 1"
        ctx.close()
        engine.dispose()
    finally:
        stop_process(proc)
        if old is None:
            os.environ.pop("RESIDUAL_LAB_DATA", None)
        else:
            os.environ["RESIDUAL_LAB_DATA"] = old


def test_the_class_version_route(browser, tmp_path):
    """GET /_class_version (server.py): what a student's page polls. It answers only with the class's follow key
    (a wrong key, another class's key, an unknown code or an overlong value: 404, nothing about the class),
    never lets a browser cache the answer, and shows a teacher's action within its one-second sharing window."""
    import json
    import time
    import urllib.error
    import urllib.request
    from urllib.parse import urlencode

    from browserlib import free_port
    from lab.classroom import store
    from lab.classroom.db import make_engine

    old = os.environ.get("RESIDUAL_LAB_DATA")
    os.environ["RESIDUAL_LAB_DATA"] = str(tmp_path)
    try:
        proc, url = start_streamlit("server.py", cwd=ROOT, port=free_port())
    finally:
        if old is None:
            os.environ.pop("RESIDUAL_LAB_DATA", None)
        else:
            os.environ["RESIDUAL_LAB_DATA"] = old
    engine = make_engine(f"sqlite:///{tmp_path / 'classroom.db'}")
    try:
        mine, theirs = store.create_class(engine, "route"), store.create_class(engine, "other")
        store.open_activity(engine, mine.code, mine.teacher_token, "predict", {"source": "worked-example"})
        key = store.class_version(engine, mine.code).follow_key

        def get(code, key):
            request = f"{url}/_class_version?{urlencode({'code': code, 'key': key})}"
            try:
                with urllib.request.urlopen(request, timeout=10) as response:
                    return response.status, json.loads(response.read()), response.headers.get("Cache-Control")
            except urllib.error.HTTPError as exc:
                return exc.code, json.loads(exc.read()), exc.headers.get("Cache-Control")

        assert get(mine.code, key)[0] == 503  # no page has run in this process yet: the page asks again
        page = browser.new_page()
        goto(page, f"{url}/class?code={mine.code}&teacher={mine.teacher_token}")  # opens the database for the route
        page.close()
        status, body, cache = get(mine.code, key)
        assert status == 200 and cache == "no-store"
        assert body == {"version": store.class_version(engine, mine.code).version, "open": True}
        version = body["version"]
        for code, wrong in [
            (mine.code, key[:-1] + ("0" if key[-1] != "0" else "1")),  # one digit off
            (mine.code, store.class_version(engine, theirs.code).follow_key),  # another class's key
            ("QQQQQQ", key),  # no such class
            (mine.code.lower(), key),  # not a class code as stored (and not looked up)
            (mine.code + "\u0000", key),
            (mine.code, "k" * 10_000),  # overlong: cut to 64 characters, then refused
            (mine.code, ""),
        ]:
            status, body, cache = get(code, wrong)
            assert status == 404 and body == {"error": "unknown class or key"} and cache == "no-store"
        store.lock(engine, mine.code, mine.teacher_token)
        time.sleep(1.2)  # past the one-second window in which the pages of a class share one reading
        assert get(mine.code, key)[1] == {"version": version + 1, "open": True}
        store.end_class(engine, mine.code, mine.teacher_token)
        time.sleep(1.2)
        assert get(mine.code, key)[1] == {"version": version + 2, "open": False}
    finally:
        engine.dispose()
        stop_process(proc)
