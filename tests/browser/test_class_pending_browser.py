"""A press that the class database answers late is reported by itself, in headless Chromium on server.py (as
./run) with the default SQLite storage: another writer holds the database while the press is sent, so the page's
wait for it (``RESIDUAL_LAB_DB_TIMEOUT_S``, 1 s here) ends first and the page says the press waits for the
database. The database answers reads all along. What became of the press must then show within a few seconds,
with no further press:
- a teacher's Reveal saved once the other writer lets go, or not saved when it holds on past the Reveal's busy
  timeout (10 s): the dashboard's own check finds the call ended and draws the page again;
- a student's Submit saved once the other writer lets go. A Submit reruns only the page's activity part, and
  nothing of the class moved, so nothing else draws the page again: before
  lab.views.live_class.common.redraw_when_pending_ends the page said "waits for it" until the student pressed
  something, against its own promise ("This page says whether it was saved as soon as the database answers").
"""

from __future__ import annotations

import sqlite3
import time
from types import SimpleNamespace

import pytest
from sqlalchemy import text
from test_classroom_faults_browser import _env, student_typing

from browserlib import DESKTOP, ROOT, goto, screenshot_full, start_streamlit, stop_process, wait_idle
from lab.classroom import classes, versions
from lab.classroom.db import BUSY_TIMEOUT_MS, make_engine
from lab.views.live_class.teacher import DASHBOARD_EVERY_S

WAITING = "is waiting for the class database"


class OtherWriter:
    """Another connection that takes the SQLite database's one write lock (reads go on beside it)."""

    def __init__(self, database):
        self.database, self.conn, self.held_at = database, None, None

    def hold(self) -> None:
        self.conn = sqlite3.connect(self.database, isolation_level=None, timeout=5)
        self.conn.execute("BEGIN IMMEDIATE")  # a write sent now waits for it (busy timeout)
        self.held_at = time.monotonic()

    def let_go(self) -> float:
        """Let the database go; returns when."""
        self.conn.execute("ROLLBACK")
        self.close()
        return time.monotonic()

    def close(self) -> None:
        if self.conn is not None:
            self.conn.close()
            self.conn = None


@pytest.fixture
def late_class(tmp_path):
    """server.py on a SQLite class database whose pages wait 1 s for it, a class with a predict activity open, and
    the other writer: (url, engine, the class, writer, the class version before anything was pressed)."""
    with _env(RESIDUAL_LAB_DATA=str(tmp_path), RESIDUAL_LAB_DB_TIMEOUT_S="1"):
        proc, url = start_streamlit("server.py", cwd=ROOT)
    database = tmp_path / "classroom.db"
    engine = make_engine(f"sqlite:///{database}")
    writer = OtherWriter(database)
    try:
        new = classes.create_class(engine, "late")
        classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
        version = versions.stored_class_version(engine, new.code).version
        yield SimpleNamespace(url=url, engine=engine, new=new, writer=writer, version_before=version)
    finally:
        writer.close()
        engine.dispose()
        stop_process(proc)


def press_reveal_behind_another_writer(browser, late):
    """The teacher's dashboard, Reveal pressed while the other writer holds the database: the page, which says the
    Reveal is waiting, and has been drawn again."""
    teacher = browser.new_context(viewport=DESKTOP).new_page()
    goto(teacher, f"{late.url}/class?code={late.new.code}&teacher={late.new.teacher_token}")
    late.writer.hold()
    teacher.get_by_role("button", name="Reveal to class").click()
    teacher.get_by_text(WAITING, exact=False).first.wait_for(timeout=15_000)
    # the dashboard's own check reads the database (reads go on beside a writer) and draws the page again
    time.sleep(2 * DASHBOARD_EVERY_S + 0.5)
    assert teacher.get_by_text(WAITING, exact=False).count()
    return teacher


def revealed_at(engine):
    with engine.connect() as conn:
        return conn.execute(text("SELECT revealed_at FROM activities")).scalar_one()


def test_a_reveal_saved_late_is_reported_without_another_press(browser, late_class, screenshot_dir):
    teacher = press_reveal_behind_another_writer(browser, late_class)
    screenshot_full(teacher, screenshot_dir / "class-dashboard-reveal-waiting-1280.png")
    # let go before the Reveal's write gives up
    assert time.monotonic() - late_class.writer.held_at < BUSY_TIMEOUT_MS / 1000 - 1
    let_go_at = late_class.writer.let_go()
    teacher.get_by_text("was saved when the database answered", exact=False).first.wait_for(timeout=8_000)
    told_after = time.monotonic() - let_go_at
    print(f"the late Reveal reported saved {told_after:.2f} s after the other writer let go")
    assert told_after < 4.0
    wait_idle(teacher)
    assert not teacher.get_by_text(WAITING, exact=False).count()
    assert revealed_at(late_class.engine) is not None
    assert versions.stored_class_version(late_class.engine, late_class.new.code).version == (
        late_class.version_before + 1  # once
    )


def test_a_reveal_that_fails_late_is_reported_without_another_press(browser, late_class):
    teacher = press_reveal_behind_another_writer(browser, late_class)
    # held on past the Reveal's busy timeout: its write gives up, and the dashboard must say so by itself
    teacher.get_by_text("was not saved", exact=False).first.wait_for(timeout=BUSY_TIMEOUT_MS + 8_000)
    told_after = time.monotonic() - late_class.writer.held_at
    print(f"the failed Reveal reported {told_after:.2f} s after the other writer took the database")
    assert told_after < BUSY_TIMEOUT_MS / 1000 + 5.0
    wait_idle(teacher)
    assert not teacher.get_by_text(WAITING, exact=False).count()
    late_class.writer.let_go()
    assert revealed_at(late_class.engine) is None
    assert versions.stored_class_version(late_class.engine, late_class.new.code).version == (
        late_class.version_before  # nothing happened
    )


def test_a_submission_saved_late_is_reported_on_the_students_page_by_itself(browser, late_class):
    ctx, page = student_typing(browser, late_class.url, late_class.new.code)
    late_class.writer.hold()
    page.get_by_role("button", name="Submit").click()
    page.get_by_text("what you just sent waits for it", exact=False).first.wait_for(timeout=15_000)
    time.sleep(2)  # the page as it stands: no run of its own is due (the class did not move)
    let_go_at = late_class.writer.let_go()
    page.get_by_text("was saved when the database answered", exact=False).first.wait_for(timeout=8_000)
    told_after = time.monotonic() - let_go_at
    print(f"the late Submit reported saved {told_after:.2f} s after the other writer let go")
    assert told_after < 4.0
    wait_idle(page)  # the run that says it has finished: the earlier run's notice is gone with it
    assert not page.get_by_text("what you just sent waits for it", exact=False).count()
    with late_class.engine.connect() as conn:
        assert conn.execute(text("SELECT revisions FROM submissions")).scalars().all() == [1]  # once
    ctx.close()
