"""The class-version route (lab.views.live_class.follow) answered before Streamlit's middleware (VersionShortcut,
server.py)
gives the same status, headers and body as the route itself, for every kind of request a page or a stranger sends;
any other path or method goes on to the app. Called as ASGI apps directly: no server, no browser."""

from __future__ import annotations

import asyncio
import json
import threading
import time
from concurrent.futures import ThreadPoolExecutor

import pytest
from starlette.applications import Starlette
from starlette.middleware import Middleware

from lab.classroom import classes, versions
from lab.views.live_class import database, follow


def call(app, path: str, query: str = "", method: str = "GET") -> tuple[int, dict, bytes]:
    sent = []

    async def receive():
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    scope = {
        "type": "http", "asgi": {"version": "3.0"}, "http_version": "1.1", "method": method, "scheme": "http",
        "path": path, "raw_path": path.encode(), "root_path": "", "query_string": query.encode(),
        "headers": [(b"host", b"testserver")], "client": ("127.0.0.1", 5000), "server": ("testserver", 80),
    }
    # on a thread of its own: the browser tests' Playwright keeps an event loop running on this one
    with ThreadPoolExecutor(1) as thread:
        thread.submit(asyncio.run, app(scope, receive, send)).result()
    start = next(m for m in sent if m["type"] == "http.response.start")
    body = b"".join(m.get("body", b"") for m in sent if m["type"] == "http.response.body")
    return start["status"], {k.decode(): v.decode() for k, v in start["headers"]}, body


@pytest.fixture
def apps(engine, monkeypatch):
    """The route alone, and the route behind the shortcut; the engine a page of this process would have opened."""
    monkeypatch.setattr(database, "_last_engine", engine)
    monkeypatch.setattr(database, "VERSION_TTL_S", 0.0)  # every request reads the database: no shared reading
    fallthrough = []

    async def elsewhere(request):
        from starlette.responses import PlainTextResponse

        fallthrough.append(request.url.path)
        return PlainTextResponse("the app")

    from starlette.routing import Route

    routes = follow.routes() + [Route("/other", elsewhere)]
    shortcut = Starlette(routes=routes, middleware=[Middleware(follow.VersionShortcut)])
    return Starlette(routes=routes), shortcut, fallthrough


def test_the_shortcut_answers_as_the_route_does(engine, apps):
    plain, shortcut = apps[:2]
    new, other = classes.create_class(engine, "route"), classes.create_class(engine, "other")
    key = versions.stored_class_version(engine, new.code).follow_key
    display = versions.stored_class_version(engine, new.code).display_key
    classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    activity = versions.stored_class_version(engine, new.code).layout.split(".")[0]
    opened = {"version": 2, "open": True, "layout": f"{activity}.0", "live": f"{activity}.0|1|0|0"}
    cases = [
        (f"code={new.code}&key={key}", 200, opened),  # a student's page
        (f"code={new.code}&key={display}", 200, opened),  # the projector
        (f"code={new.code}&key={key[:-1]}", 404, {"error": "unknown class or key"}),
        (f"code={new.code}&key={versions.stored_class_version(engine, other.code).follow_key}", 404, None),
        (f"code=QQQQQQ&key={key}", 404, None),
        (f"code={new.code.lower()}&key={key}", 404, None),
        (f"code={new.code}%00&key={key}", 404, None),
        (f"code={new.code}&key={'k' * 10_000}", 404, None),
        ("", 404, None),
        (f"code=QQQQQQ&code={new.code}&key={key}", 200, opened),  # the last of a repeated parameter, as Starlette
    ]
    for query, status, body in cases:
        answered = call(shortcut, follow.ROUTE_PATH, query)
        assert answered == call(plain, follow.ROUTE_PATH, query), query
        assert answered[0] == status and answered[1]["cache-control"] == "no-store", query
        assert json.loads(answered[2]) == (body or {"error": "unknown class or key"}), query
        assert call(shortcut, follow.ROUTE_PATH, query, "HEAD") == call(plain, follow.ROUTE_PATH, query, "HEAD"), query
    classes.lock(engine, new.code, new.teacher_token)
    locked = call(shortcut, follow.ROUTE_PATH, f"code={new.code}&key={key}")
    assert json.loads(locked[2]) == {**opened, "version": 3, "layout": f"{activity}.1", "live": f"{activity}.1|1|0|0"}


def test_no_database_yet_is_a_503_and_other_requests_go_on(engine, apps, monkeypatch):
    plain, shortcut, fallthrough = apps
    new = classes.create_class(engine, "route")
    query = f"code={new.code}&key={versions.stored_class_version(engine, new.code).follow_key}"
    monkeypatch.setattr(database, "_last_engine", None)  # a restarted process: no page has run yet
    answered = call(shortcut, follow.ROUTE_PATH, query)
    assert answered == call(plain, follow.ROUTE_PATH, query)
    assert answered[0] == 503 and json.loads(answered[2]) == {"error": "unavailable"}
    post = call(shortcut, follow.ROUTE_PATH, query, "POST")  # the route's own refusal, not the shortcut's
    assert post == call(plain, follow.ROUTE_PATH, query, "POST") and post[0] == 405
    assert call(shortcut, "/other")[2] == b"the app" and fallthrough == ["/other"]
    assert call(shortcut, follow.ROUTE_PATH + "/x", query)[0] == 404  # only the route's own path


def timed_call(app, query: str) -> tuple[float, tuple[int, dict, bytes]]:
    started = time.monotonic()
    answered = call(app, follow.ROUTE_PATH, query)
    return time.monotonic() - started, answered


def test_a_check_after_the_drawn_version_is_held_until_the_teacher_acts(engine, apps, monkeypatch):
    """A page that says which version it drew (``&after=``) gets no answer until there is something new: the
    teacher's next action (answered within the watcher's interval, not the page's), or the end of the hold."""
    plain, shortcut = apps[:2]
    monkeypatch.setattr(follow, "HOLD_S", 1.5)
    new = classes.create_class(engine, "held")
    key = versions.stored_class_version(engine, new.code).follow_key
    classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    query = f"code={new.code}&key={key}&after="
    # nothing new: held for the whole hold, then the version as it is
    took, (status, _headers, body) = timed_call(shortcut, query + "2")
    assert status == 200 and json.loads(body)["version"] == 2 and 1.5 <= took < 3.0
    # the teacher acts 0.6 s into the hold: answered then, with the new version (through the route itself too)
    for app, action in ((shortcut, classes.lock), (plain, classes.unlock)):
        version = versions.stored_class_version(engine, new.code).version
        timer = threading.Timer(0.6, action, (engine, new.code, new.teacher_token))
        timer.start()
        took, (status, _headers, body) = timed_call(app, query + str(version))
        timer.join()
        assert status == 200 and json.loads(body)["version"] == version + 1
        assert 0.6 <= took < 1.2, took
    # an older version, a class that ended, a wrong key, or an unreadable ``after``: answered at once
    version = versions.stored_class_version(engine, new.code).version
    for late, expected in ((query + str(version - 1), 200), (f"code={new.code}&key={key[:-1]}&after={version}", 404),
                           (query + "x", 200), (query + "-1", 200), (query + "9" * 100, 200),
                           (query + "%C2%B2", 200), (query + "nan", 200), (query + "1e999", 200),
                           (query + "1" * 1_000_000, 200)):
        took, (status, _headers, _body) = timed_call(shortcut, late)
        assert status == expected and took < 0.5, late
    classes.end_class(engine, new.code, new.teacher_token)
    took, (status, _headers, body) = timed_call(shortcut, query + str(version))
    assert status == 200 and json.loads(body)["open"] is False and took < 0.5
    assert follow._watches == {} or all(w["waiting"] == 0 for w in follow._watches.values())


def test_held_checks_of_a_whole_class_are_all_answered_by_one_action(engine, apps, monkeypatch):
    """Forty pages held at once (on one event loop, as the server holds them) are all answered within about the
    watcher's interval of the teacher's action; past MAX_HELD a check is answered at once."""
    monkeypatch.setattr(follow, "HOLD_S", 5.0)
    new = classes.create_class(engine, "hall")
    key = versions.stored_class_version(engine, new.code).follow_key
    classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    query = f"code={new.code}&key={key}&after={versions.stored_class_version(engine, new.code).version}"

    async def hall():
        loop = asyncio.get_running_loop()
        pages = [asyncio.ensure_future(follow.class_version_answer(query)) for _ in range(40)]
        await asyncio.sleep(0.5)
        assert not any(p.done() for p in pages) and follow._held_now == 40
        monkeypatch.setattr(follow, "MAX_HELD", 40)
        started = loop.time()
        assert (await follow.class_version_answer(query))[0] == 200 and loop.time() - started < 0.3  # not held
        acted = loop.time()
        await loop.run_in_executor(None, lambda: classes.show_responses(engine, new.code, new.teacher_token))
        answers = await asyncio.gather(*pages)
        return loop.time() - acted, answers

    with ThreadPoolExecutor(1) as thread:  # on a thread of its own, as call(): Playwright's loop may run on this one
        took, answers = thread.submit(asyncio.run, hall()).result()
    assert took < 1.0, took
    assert {(status, body["version"]) for status, body in answers} == {
        (200, versions.stored_class_version(engine, new.code).version)
    }
    assert follow._held_now == 0
