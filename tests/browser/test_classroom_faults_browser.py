"""A class behind one address and a class in trouble, in headless Chromium (docs/security.md):

- two browser contexts at the same address (127.0.0.1), on server.py (as ./run) and through deploy/serve
  (HAProxy, two replicas): wrong codes in one, the right code in the other joins at once; a forged
  X-Forwarded-For, new on every reload, does not lift the first browser's slowing;
- the server is killed (-9) and started again under a student's page that does not reload: its first
  Submit is saved, and the page shows what the database holds;
- PostgreSQL (a cluster of the test's own) stops in the middle of a class: the student's page says the
  database is unreachable and nothing was saved, keeps the typed values, /_class_version answers 503 with
  no details; PostgreSQL starts again and the page carries on by itself.
"""

from __future__ import annotations

import json
import os
import re
import shutil
import signal
import time
import urllib.error
import urllib.request
from fractions import Fraction
from pathlib import Path

import pytest

import browserlib
from browserlib import (
    DESKTOP,
    PHONE,
    ROOT,
    free_port,
    goto,
    screenshot_full,
    start_streamlit,
    stop_process,
    stop_serve,
    wait_idle,
)
from lab.classroom import answers, classes, dashboards, limits, versions
from lab.classroom.db import make_engine

WRONG = "QQQQQQ"


def _env(**values):
    """Set environment variables for a server started inside the block; restore them after."""

    class Env:
        def __enter__(self):
            self.old = {k: os.environ.get(k) for k in values}
            os.environ.update(values)

        def __exit__(self, *exc):
            for k, v in self.old.items():
                if v is None:
                    os.environ.pop(k, None)
                else:
                    os.environ[k] = v

    return Env()


def start_serve(tmp_path: Path, data: Path):
    """deploy/serve with two replicas on a free port, sharing the SQLite file in ``data``."""
    if shutil.which("haproxy") is None and shutil.which("haproxy", path="/usr/sbin:/sbin") is None:
        if os.environ.get("CI") == "true":
            pytest.fail("haproxy is not installed")
        pytest.skip("haproxy is not installed")
    return browserlib.start_serve(tmp_path / "run", env={"RESIDUAL_LAB_DATA": str(data)}, log=tmp_path / "serve.log")


def join(page, code: str, name: str = "Ann") -> None:
    page.get_by_role("textbox", name="Class code").fill(code)
    page.get_by_role("textbox", name="Your name").fill(name)
    page.get_by_role("button", name="Join").click()
    wait_idle(page)


def student_typing(browser, url: str, code: str):
    """A student (Ann) joined to class ``code`` on a desktop page, with 0.6 and 0.4 typed into the prediction
    boxes but not submitted (the cursor left the boxes): (the browser context, the page)."""
    ctx = browser.new_context(viewport=DESKTOP)
    page = ctx.new_page()
    goto(page, f"{url}/class?code={code}")
    join(page, code, "Ann")
    page.wait_for_url("**student=**")
    wait_idle(page)
    page.get_by_role("textbox", name="Predict r(B)").fill("0.6")
    page.get_by_role("textbox", name="Predict r(C)").fill("0.4")
    page.get_by_role("textbox", name="Predict r(C)").press("Tab")  # typed, not submitted, left the box
    return ctx, page


def alert_text(page) -> str:
    return " ".join(page.locator("[data-testid=stAlert]").all_inner_texts())


@pytest.mark.parametrize("server", ["server.py", "deploy/serve"])
def test_one_browsers_wrong_codes_never_keep_another_out(browser, tmp_path, server, screenshot_dir):
    data = tmp_path / "data"
    data.mkdir()
    if server == "server.py":
        with _env(RESIDUAL_LAB_DATA=str(data)):
            proc, url = start_streamlit("server.py", cwd=ROOT)
        stop = stop_process
    else:
        proc, url = start_serve(tmp_path, data)
        stop = stop_serve
    engine = make_engine(f"sqlite:///{data / 'classroom.db'}")
    try:
        new = classes.create_class(engine, "one address")
        classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
        guesser = browser.new_context(viewport=DESKTOP, extra_http_headers={"X-Forwarded-For": "10.9.9.1"})
        page = guesser.new_page()
        goto(page, f"{url}/class")
        for _ in range(limits.FREE_WRONG_CODES):
            join(page, WRONG, "Eve")
            assert "No open class has the code" in alert_text(page)
        join(page, WRONG, "Eve")
        assert "Too many wrong class codes from this browser: wait" in alert_text(page)
        wait = 2
        for _ in range(3):  # keep guessing as fast as allowed: the waits double (4, 8, then 16 s)
            time.sleep(wait + 0.3)
            join(page, WRONG, "Eve")
            assert "No open class has the code" in alert_text(page)
            join(page, WRONG, "Eve")  # at once: slowed (the time left depends on the machine's load)
            wait = int(re.search(r"wait (\d+) s", alert_text(page)).group(1))
        # a new X-Forwarded-For on every reload (each a new connection): still the same browser, still slowed
        for i in range(3):
            page.set_extra_http_headers({"X-Forwarded-For": f"10.9.{i}.{i + 2}, 172.16.0.{i}"})
            goto(page, f"{url}/class")
            join(page, new.code, "Eve")
            assert "Too many wrong class codes from this browser" in alert_text(page)
            assert "student=" not in page.url

        # another browser at the same address, at once, with the right code: joins
        classmate = browser.new_context(viewport=PHONE)
        other = classmate.new_page()
        goto(other, f"{url}/class?code={new.code}")
        join(other, new.code, "Bob")  # one press, while the guesser still has seconds to wait
        assert "Too many" not in alert_text(other)
        other.wait_for_url("**student=**", timeout=15_000)
        wait_idle(other)
        assert other.get_by_role("textbox", name="Predict r(B)").is_visible()
        if server == "server.py":
            screenshot_full(other, screenshot_dir / "class-student-joined-390.png")
        guesser.close()
        classmate.close()
        board = dashboards.dashboard(engine, new.code, new.teacher_token)
        assert [s.name for s in board.students] == ["Bob"]
    finally:
        engine.dispose()
        stop(proc)


def test_first_submit_after_a_kill_9_and_restart_is_saved(browser, tmp_path, screenshot_dir):
    port = free_port()
    with _env(RESIDUAL_LAB_DATA=str(tmp_path)):
        proc, url = start_streamlit("server.py", cwd=ROOT, port=port)
    engine = make_engine(f"sqlite:///{tmp_path / 'classroom.db'}")
    try:
        new = classes.create_class(engine, "restart")
        classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
        ctx = browser.new_context(viewport=DESKTOP)
        page = ctx.new_page()
        goto(page, f"{url}/class?code={new.code}")
        join(page, new.code, "Ann")
        page.wait_for_url("**student=**")
        wait_idle(page)
        token = page.url.split("student=")[1].split("&")[0]
        page.get_by_role("textbox", name="Predict r(B)").fill("0.65")
        page.get_by_role("textbox", name="Predict r(C)").fill("0.35")
        page.get_by_role("button", name="Submit").click()
        wait_idle(page)
        assert "Saved at" in alert_text(page)

        proc.send_signal(signal.SIGKILL)
        proc.wait(timeout=10)
        with _env(RESIDUAL_LAB_DATA=str(tmp_path)):
            proc, url = start_streamlit("server.py", cwd=ROOT, port=port)
        # the page reconnects by itself (no reload)
        page.wait_for_selector("[data-testid=stApp][data-test-connection-state=CONNECTED]", timeout=60_000)
        wait_idle(page)
        page.get_by_role("textbox", name="Predict r(B)").fill("0.55")
        page.get_by_role("textbox", name="Predict r(C)").fill("0.45")
        page.get_by_role("button", name="Submit").click()  # the first Submit after the restart
        wait_idle(page)
        page.get_by_text("Saved in the class database: 0.55 for r(B), 0.45 for r(C)", exact=False).wait_for(
            timeout=15_000
        )
        assert answers.student_state(engine, new.code, token).prediction == (
            Fraction(11, 20),
            Fraction(9, 20),
        )
        assert "Saved at" in alert_text(page)
        screenshot_full(page, screenshot_dir / "class-student-after-restart-1280.png")
        ctx.close()
    finally:
        engine.dispose()
        stop_process(proc)


def test_postgresql_stops_mid_class_and_the_page_recovers(browser, own_postgres, tmp_path, screenshot_dir):
    with _env(RESIDUAL_LAB_DATABASE_URL=own_postgres.url, RESIDUAL_LAB_DATA=str(tmp_path)):
        proc, url = start_streamlit("server.py", cwd=ROOT)
    engine = make_engine(own_postgres.url)
    try:
        new = classes.create_class(engine, "outage")
        classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
        key = versions.stored_class_version(engine, new.code).follow_key
        ctx, page = student_typing(browser, url, new.code)

        own_postgres.halt()
        engine.dispose()
        # the page finds out by itself (its version check answers 503), and says so
        page.get_by_text("class database cannot be reached", exact=False).first.wait_for(timeout=20_000)
        wait_idle(page)
        page.get_by_role("button", name="Submit").click()
        wait_idle(page)
        said = alert_text(page)
        assert "cannot be reached" in said and "nothing was saved" in said
        assert not page.locator("[data-testid=stException]").count()
        assert page.get_by_role("textbox", name="Predict r(B)").input_value() == "0.6"
        assert page.get_by_role("textbox", name="Predict r(C)").input_value() == "0.4"
        screenshot_full(page, screenshot_dir / "class-student-database-down-1280.png")
        try:
            urllib.request.urlopen(f"{url}/_class_version?code={new.code}&key={key}", timeout=10)
            raise AssertionError("the route answered while the database was down")
        except urllib.error.HTTPError as exc:
            assert exc.code == 503 and json.loads(exc.read()) == {"error": "unavailable"}

        own_postgres.resume()
        # back by itself: the warning goes, the typed values stay, Submit saves
        page.wait_for_function(
            "() => !document.body.innerText.includes('cannot be reached')", timeout=30_000, polling=500
        )
        wait_idle(page)
        assert page.get_by_role("textbox", name="Predict r(B)").input_value() == "0.6"
        page.get_by_role("button", name="Submit").click()
        wait_idle(page)
        assert "Saved at" in alert_text(page)
        engine = make_engine(own_postgres.url)
        token = page.url.split("student=")[1].split("&")[0]
        assert answers.student_state(engine, new.code, token).prediction == (Fraction(3, 5), Fraction(2, 5))
        ctx.close()
    finally:
        engine.dispose()
        stop_process(proc)
