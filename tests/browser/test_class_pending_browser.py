"""A press that the class database answers late is reported by itself, in headless Chromium on server.py (as
./run) with the default SQLite storage: another writer holds the database while the press is sent, so the page's
wait for it (``RESIDUAL_LAB_DB_TIMEOUT_S``, 1 s here) ends first and the page says the press waits for the
database. The database answers reads all along. What became of the press must then show within a few seconds,
with no further press:
- a teacher's Reveal saved once the other writer lets go, or not saved when it holds on past the Reveal's busy
  timeout (10 s): the dashboard's own check finds the call ended and draws the page again;
- a student's Submit saved once the other writer lets go. A Submit reruns only the page's activity part, and
  nothing of the class moved, so nothing else draws the page again: before
  lab.views.class_common.redraw_when_pending_ends the page said "waits for it" until the student pressed
  something, against its own promise ("This page says whether it was saved as soon as the database answers").
"""

from __future__ import annotations

import sqlite3
import time

from sqlalchemy import text
from test_classroom_faults_browser import _env, student_typing

from browserlib import DESKTOP, ROOT, goto, screenshot_full, start_streamlit, stop_process, wait_idle
from lab.classroom import classes, versions
from lab.classroom.db import BUSY_TIMEOUT_MS, make_engine
from lab.views.class_teacher import DASHBOARD_EVERY_S

WAITING = "is waiting for the class database"


def press_reveal_behind_another_writer(browser, url, engine, new, database):
    """The teacher's dashboard, Reveal pressed while another writer holds the database: (page, the writer's
    connection, when it took the database). The dashboard says the Reveal is waiting, and is drawn again."""
    teacher = browser.new_context(viewport=DESKTOP).new_page()
    goto(teacher, f"{url}/class?code={new.code}&teacher={new.teacher_token}")
    writer = sqlite3.connect(database, isolation_level=None, timeout=5)
    writer.execute("BEGIN IMMEDIATE")  # another writer: the Reveal's write waits for it (busy timeout)
    held_at = time.monotonic()
    teacher.get_by_role("button", name="Reveal to class").click()
    teacher.get_by_text(WAITING, exact=False).first.wait_for(timeout=15_000)
    # the dashboard's own check reads the database (reads go on beside a writer) and draws the page again
    time.sleep(2 * DASHBOARD_EVERY_S + 0.5)
    assert teacher.get_by_text(WAITING, exact=False).count()
    return teacher, writer, held_at


def a_class(tmp_path):
    with _env(RESIDUAL_LAB_DATA=str(tmp_path), RESIDUAL_LAB_DB_TIMEOUT_S="1"):
        proc, url = start_streamlit("server.py", cwd=ROOT)
    database = tmp_path / "classroom.db"
    engine = make_engine(f"sqlite:///{database}")
    new = classes.create_class(engine, "late")
    classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    return proc, url, database, engine, new


def revealed_at(engine):
    with engine.connect() as conn:
        return conn.execute(text("SELECT revealed_at FROM activities")).scalar_one()


def test_a_reveal_saved_late_is_reported_without_another_press(browser, tmp_path, screenshot_dir):
    proc, url, database, engine, new = a_class(tmp_path)
    version_before = versions.stored_class_version(engine, new.code).version
    writer = None
    try:
        teacher, writer, held_at = press_reveal_behind_another_writer(browser, url, engine, new, database)
        screenshot_full(teacher, screenshot_dir / "class-dashboard-reveal-waiting-1280.png")
        assert time.monotonic() - held_at < BUSY_TIMEOUT_MS / 1000 - 1  # let go before the Reveal's write gives up
        writer.execute("ROLLBACK")
        writer.close()
        writer = None
        let_go_at = time.monotonic()
        teacher.get_by_text("was saved when the database answered", exact=False).first.wait_for(timeout=8_000)
        told_after = time.monotonic() - let_go_at
        print(f"the late Reveal reported saved {told_after:.2f} s after the other writer let go")
        assert told_after < 4.0
        wait_idle(teacher)
        assert not teacher.get_by_text(WAITING, exact=False).count()
        assert revealed_at(engine) is not None
        assert versions.stored_class_version(engine, new.code).version == version_before + 1  # once
    finally:
        if writer is not None:
            writer.close()
        engine.dispose()
        stop_process(proc)


def test_a_reveal_that_fails_late_is_reported_without_another_press(browser, tmp_path):
    proc, url, database, engine, new = a_class(tmp_path)
    version_before = versions.stored_class_version(engine, new.code).version
    writer = None
    try:
        teacher, writer, held_at = press_reveal_behind_another_writer(browser, url, engine, new, database)
        # held on past the Reveal's busy timeout: its write gives up, and the dashboard must say so by itself
        teacher.get_by_text("was not saved", exact=False).first.wait_for(timeout=BUSY_TIMEOUT_MS + 8_000)
        told_after = time.monotonic() - held_at
        print(f"the failed Reveal reported {told_after:.2f} s after the other writer took the database")
        assert told_after < BUSY_TIMEOUT_MS / 1000 + 5.0
        wait_idle(teacher)
        assert not teacher.get_by_text(WAITING, exact=False).count()
        writer.execute("ROLLBACK")
        writer.close()
        writer = None
        assert revealed_at(engine) is None
        assert versions.stored_class_version(engine, new.code).version == version_before  # nothing happened
    finally:
        if writer is not None:
            writer.close()
        engine.dispose()
        stop_process(proc)


def test_a_submission_saved_late_is_reported_on_the_students_page_by_itself(browser, tmp_path):
    proc, url, database, engine, new = a_class(tmp_path)
    writer = None
    try:
        ctx, page = student_typing(browser, url, new.code)
        writer = sqlite3.connect(database, isolation_level=None, timeout=5)
        writer.execute("BEGIN IMMEDIATE")  # another writer: the Submit's write waits for it
        page.get_by_role("button", name="Submit").click()
        page.get_by_text("what you just sent waits for it", exact=False).first.wait_for(timeout=15_000)
        time.sleep(2)  # the page as it stands: no run of its own is due (the class did not move)
        writer.execute("ROLLBACK")
        writer.close()
        writer = None
        let_go_at = time.monotonic()
        page.get_by_text("was saved when the database answered", exact=False).first.wait_for(timeout=8_000)
        told_after = time.monotonic() - let_go_at
        print(f"the late Submit reported saved {told_after:.2f} s after the other writer let go")
        assert told_after < 4.0
        wait_idle(page)  # the run that says it has finished: the earlier run's notice is gone with it
        assert not page.get_by_text("what you just sent waits for it", exact=False).count()
        with engine.connect() as conn:
            assert conn.execute(text("SELECT revisions FROM submissions")).scalars().all() == [1]  # once
        ctx.close()
    finally:
        if writer is not None:
            writer.close()
        engine.dispose()
        stop_process(proc)
