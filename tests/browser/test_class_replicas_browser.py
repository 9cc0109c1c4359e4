"""Replicas agree (docs/deployment.md): deploy/serve with two replicas sharing one class database and one server
secret; a student removed by the teacher is refused on both replicas, from the browser session he joined with
and from a fresh one (his name), in headless Chromium. Each browser is pinned to a replica by HAProxy's cookie."""

from __future__ import annotations

from test_classroom_faults_browser import alert_text, join, start_serve, stop_serve

from browserlib import DESKTOP, goto, haproxy_stats, wait_idle
from lab.classroom import classes, dashboards, roster, teacher_link
from lab.classroom.db import make_engine


def pinned(browser, url: str, replica: str):
    ctx = browser.new_context(viewport=DESKTOP)
    ctx.add_cookies([{"name": "RLSERVER", "value": replica, "url": url}])  # HAProxy's affinity cookie
    return ctx


def test_a_removed_student_is_refused_on_both_replicas(browser, tmp_path):
    data = tmp_path / "data"
    data.mkdir()
    proc, url = start_serve(tmp_path, data)
    engine = make_engine(f"sqlite:///{data / 'classroom.db'}")
    try:
        new = classes.create_class(engine, "two replicas")
        classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
        key = teacher_link.check_teacher(engine, new.code, new.teacher_token).join_key
        link = f"{url}/class?code={new.code}&join={key}"
        bob = pinned(browser, url, "r1")
        page = bob.new_page()
        goto(page, link)
        join(page, new.code, "Bob")
        page.wait_for_url("**student=**")
        (bob_row,) = dashboards.dashboard(engine, new.code, new.teacher_token).students
        roster.remove_student(engine, new.code, new.teacher_token, bob_row.id)
        refusals = {}
        for replica in ("r1", "r2"):
            # his own browser session, moved to this replica (same cookies, another name)
            bob.add_cookies([{"name": "RLSERVER", "value": replica, "url": url}])
            goto(page, link)
            join(page, new.code, "Robert")
            refusals[("his browser", replica)] = alert_text(page)
            # a fresh browser session on this replica, his name
            fresh = pinned(browser, url, replica)
            other = fresh.new_page()
            goto(other, link)
            join(other, new.code, "Bob")
            refusals[("fresh browser", replica)] = alert_text(other)
            assert "student=" not in other.url and "student=" not in page.url
            fresh.close()
        for (who, replica), said in refusals.items():
            expected = "removed you" if who == "his browser" else "removed a student named Bob"
            assert expected in said, (who, replica, said)
        # and the class still admits others on both
        for replica in ("r1", "r2"):
            ctx = pinned(browser, url, replica)
            p = ctx.new_page()
            goto(p, link)
            join(p, new.code, f"Ann {replica}")
            p.wait_for_url("**student=**")
            wait_idle(p)
            ctx.close()
        assert all(int(r["stot"]) > 0 for r in haproxy_stats(tmp_path / "run").values())  # both replicas served
        board = dashboards.dashboard(engine, new.code, new.teacher_token)
        assert [s.name for s in board.students] == ["Ann r1", "Ann r2"] and [s.name for s in board.removed] == ["Bob"]
        bob.close()
    finally:
        engine.dispose()
        stop_serve(proc)
