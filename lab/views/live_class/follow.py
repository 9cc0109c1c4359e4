"""A student's page follows the teacher: it redraws when the class's version (bumped by every teacher action)
moves past the version the page was drawn for.

Served through server.py (``./run``, ``deploy/serve``), the page holds a small script (a Streamlit component)
that asks the server for the version over plain HTTP every few seconds (``GET /_class_version``: a dict lookup,
one small database query a second per class) and reruns the page only when it changed: a waiting class costs
tiny requests, not script runs (bench/bench_classroom.py measures both; docs/decisions/0002).

Run as ``streamlit run app.py`` (no route: AppTest, or an app started by hand), the page falls back to a timed
fragment that reads the same shared version (``FOLLOW_EVERY_S``).
"""

from __future__ import annotations

import asyncio
import hmac
from urllib.parse import urlencode

import streamlit as st

from lab.classroom import naming
from lab.classroom.actions import database_down
from lab.classroom.gate import gate
from lab.core.formatting import markdown_escape
from lab.views.live_class import database
from lab.views.live_class.live_part_js import SHOWN_FUNCTION, SHOWN_HTML, TELL_FUNCTION
from lab.views.live_class.session_keys import Keys
from lab.views.serving import component_code, served
from lab.views.ui.accessibility import LIVE_REGION_FUNCTION, LIVE_REGION_HTML, announce, live_data, live_element_key

ROUTE_PATH = "/_class_version"
CHECK_EVERY_MS = 1000  # how often a page asks for the version over HTTP (on average: each wait is jittered)
RETRY_MS = 3000  # a redraw asked for that has not come by then is asked for again
FOLLOW_EVERY_S = 5.0  # the fallback fragment's interval (a script run each time)
ROUTE_WAIT_S = 1.0  # the version is one tiny query: a database that takes longer is not answering
_MAX_PARAM = 64
_CODE_CHARACTERS = frozenset(naming.CODE_ALPHABET)

# The browser side: ask for the version, saying which one the page drew (``after``); the server holds the answer
# until there is something new (see HOLD_S below), so the page asks again at once after an answer that said nothing
# new, and about every data.every_ms otherwise (each wait drawn between 0.75 and 1.25 times it). When the version
# moved past the page's (or the class closed, or the server no longer knows the class), send one trigger, which
# reruns the page; the rerun draws the component again with the new version. The checking never stops while the page
# shows it:
# - Streamlit calls this function again when the data changes, without the previous call's cleanup: the previous
#   loop is stopped here (one loop per element), never left running beside the new one;
# - a request that fails or hangs (given up an interval after the longest hold) is simply tried again, and a
#   stopped loop's held request is given up at once (a browser allows a few connections a server);
# - a redraw that was asked for but did not come (the trigger, or its rerun, lost on the way; the database answered
#   the route but not the page, or the other way round) is asked for again every data.retry_ms, but never while a
#   run of this page is still going (asking then would restart a run a busy server has not finished).
# Before, a 503 or a lost redraw stopped the loop for good, and a hung request held it: the page no longer followed.
# A student's page holds this component in its live part (a fragment), whose trigger reruns that part only, and a
# second, silent one outside it (_PAGE_JS), in the page's activity part, whose trigger reruns that part: when the
# route's layout differs from the one the page was drawn with (an activity opened, a new round, Lock, the end of the
# class), the activity part is asked for at once, instead of a run of the live part that would only find out and ask
# for it (one run, not two); the activity part runs the whole page when the heading changed too (the end of a class).
_FOLLOW_FUNCTION = """
function follow(component) {
  const { data, setTriggerValue, parentElement } = component;
  if (parentElement.__labFollowStop) parentElement.__labFollowStop();
  delete parentElement.__labFollowStop;
  if (!data || !data.path) return undefined;  // a live region with nothing to follow (the class has ended)
  let stopped = false;
  let timer = null;
  let request = null;
  let askedAt = 0;
  let drawn = data.version;
  const url = new URL(data.path, window.location.href);
  const wait = () => data.every_ms * (0.75 + 0.5 * Math.random());
  const typing = () => {
    const active = document.activeElement;
    return !!active && (active.tagName === "INPUT" || active.tagName === "TEXTAREA");
  };
  const running = () => {
    const app = document.querySelector("[data-testid=stApp]");
    return !!app && app.getAttribute("data-test-script-state") === "running";
  };
  const ask = (value, whole) => {
    const now = Date.now();
    if (askedAt && (now - askedAt < data.retry_ms || running())) return;
    askedAt = now;
    const page = whole && data.layout !== undefined ? window.__labRedrawPage : undefined;
    if (page) page(value); else setTriggerValue("changed", value);
  };
  async function check() {
    if (stopped) return;
    const controller = new AbortController();
    request = controller;
    const startedAt = Date.now();
    const giveUp = setTimeout(() => controller.abort(), data.hold_ms + data.every_ms);
    let next = wait();  // after a redraw asked for, a refusal or a failure: about a second later
    try {
      url.searchParams.set("after", String(drawn));  // held by the server until there is something new
      const response = await fetch(url, { cache: "no-store", credentials: "same-origin", signal: controller.signal });
      if (response.status === 404) ask(-1, true);
      // the class database is unreachable: redraw, so the page says so (it then waits for the database); not while
      // the student is typing in a box (a redraw would drop a value not yet entered): next time
      else if (response.status === 503 && !typing()) ask(-2, true);
      else if (response.ok) {
        const state = await response.json();
        const whole = !state.open || state.layout !== data.layout;
        // nothing new (held until the server gave up), or a version taken without a run: ask again at once, but
        // never more than about twice a second
        const again = Date.now() - startedAt >= data.every_ms / 2 ? 0 : data.every_ms / 2;
        if (state.version > drawn || !state.open) {
          // nothing this page draws moved (Show responses, on a student's page): take the version, no run
          if (!whole && data.live !== undefined && state.live === data.live) { drawn = state.version; next = again; }
          else ask(state.version, whole);
        } else next = again;
      }
    } catch (error) { /* the server is restarting, or the request was given up: ask again next time */ }
    clearTimeout(giveUp);
    if (!stopped) timer = setTimeout(check, next);
  }
  // stopped (a redraw drew this element again, or it left the page): its held request goes too
  const stop = () => { stopped = true; clearTimeout(timer); if (request) request.abort(); };
  parentElement.__labFollowStop = stop;
  timer = setTimeout(check, 0);
  return stop;
}
"""
_JS = _FOLLOW_FUNCTION + "export default follow;\n"
_LIVE_JS = (
    LIVE_REGION_FUNCTION
    + SHOWN_FUNCTION
    + TELL_FUNCTION
    + _FOLLOW_FUNCTION
    + "export default function (component) {\n"
    + "  shownLines(component); liveRegion(component); tellPage(component); return follow(component);\n}\n"
)

# The activity part's trigger, drawn outside the fragment that holds the follower: it only lends the follower a way to
# rerun that part (a trigger reruns what holds its element).
_PAGE_JS = """
export default function (component) {
  const { setTriggerValue } = component;
  const redraw = (value) => setTriggerValue("redraw", value);
  window.__labRedrawPage = redraw;
  return () => { if (window.__labRedrawPage === redraw) delete window.__labRedrawPage; };
}
"""

# their code fetched once by each browser, not sent in every element (lab.views.serving.component_code)
_follower = component_code.component("residual_lab.class_follower", js=_JS)
_live_follower = component_code.component(
    "residual_lab.live_class_follower", html=SHOWN_HTML + LIVE_REGION_HTML, js=_LIVE_JS, isolate_styles=False
)
_page_redraw = st.components.v2.component("residual_lab.class_page_redraw", js=_PAGE_JS)


def page_redraw(lent: bool = False) -> None:
    """Outside the fragment that calls :func:`follow_teacher` with a ``layout``: lets its follower rerun what holds
    this (a student page's activity part) when the layout moved. Nothing without the route (the fallback fragment
    reruns the whole page itself), nor when ``lent``: another element there lends its trigger (the bar predictor,
    when drawn with ``redraws_page=lends_page_redraw()``)."""
    if served.routes_mounted and not lent:
        _page_redraw(key=Keys.PAGE_REDRAW, data={}, on_redraw_change=lambda: None, height=0)


def lends_page_redraw() -> bool:
    """Whether an element that can stand in for :func:`page_redraw` should (only where the route is served)."""
    return served.routes_mounted


def follow_teacher(
    code: str, drawn_version: int, key: str, fragment, layout: str | None = None, live: str | None = None
) -> None:
    """Keep this page current: the HTTP check when the route is served, else ``fragment`` every FOLLOW_EVERY_S
    (``fragment(code, drawn_version)`` reruns the page when the version moved). ``layout``: the page was drawn
    with it (versions.page_layout) and holds :func:`page_redraw`; when the route says another, what holds that reruns,
    else what holds this follower (a page's live part). ``live``: what of the class the page drew (versions.live_key);
    a new version with the same is taken without a run."""
    if served.routes_mounted:
        _follower(
            key=Keys.FOLLOWER,
            data=_follow_data(code, drawn_version, key, layout, live),
            on_changed_change=lambda: None,  # the trigger itself reruns the page, which redraws from the database
            height=0,
        )
    else:
        st.fragment(run_every=FOLLOW_EVERY_S)(fragment)(code, drawn_version)


def shown_line(text: str, bold: str = "", small: bool = False) -> dict:
    """A line of plain text that :func:`announce_and_follow` shows (``bold``: its first words, in bold; ``small``:
    as a caption)."""
    return {"bold": bold, "text": text, "small": small}


def draw_lines(lines: list[dict]) -> None:
    """``shown_line`` lines as Streamlit elements: a caption for a small one, else markdown."""
    for line in lines:
        text = (f"**{markdown_escape(line['bold'])}** " if line["bold"] else "") + markdown_escape(line["text"])
        (st.caption if line["small"] else st.markdown)(text)


def announce_and_follow(
    live_key: str, message: str, error: str, focus: str, follow: tuple | None, lines: list[dict] = (),
    tell: dict | None = None,
) -> None:
    """``lines`` (:func:`shown_line`), then ``announce(live_key, message, error=…, focus=…)``
    (lab.views.ui.accessibility), then, unless ``follow`` is None (the class has ended), ``follow_teacher(*follow)``.
    Served with the route, all three are one element: the live regions are the follower's (the same regions, the
    same key, from run to run, whether it follows or not), and it shows the lines above them (every page of a class
    draws this part at the same moment, and each element costs the server per page: docs/decisions/0002). ``tell``:
    what it tells the rest of the page (TELL_FUNCTION: ``closed``, ``into_view``), served with the route only (without
    it every change reruns the whole page, which draws it all)."""
    if not served.routes_mounted:
        draw_lines(lines)
        announce(live_key, message, error=error, focus=focus)
        if follow is not None:
            follow_teacher(*follow)
        return
    data = live_data(live_key, message, error=error, focus=focus)
    data["shown"] = tuple(lines)  # a tuple: Streamlit asks of every list in the data whether it is a data frame
    data.update(tell or {})
    if follow is not None:
        code, drawn_version, key, _fragment, *rest = follow
        data.update(_follow_data(code, drawn_version, key, *rest))
    _live_follower(key=live_element_key(live_key), data=data, on_changed_change=lambda: None)


def _follow_data(code: str, drawn_version: int, key: str, layout: str | None = None, live: str | None = None) -> dict:
    path = "." + ROUTE_PATH + "?" + urlencode({"code": code, "key": key})  # relative: also under a URL prefix
    data = {
        "path": path, "version": drawn_version, "every_ms": CHECK_EVERY_MS, "retry_ms": RETRY_MS,
        "hold_ms": int(HOLD_S * 1000),
    }
    if layout is not None:
        data["layout"] = layout
    if live is not None:
        data["live"] = live
    return data


# --- the server side ------------------------------------------------------------------------------------------


_HEADERS = {"Cache-Control": "no-store"}
_REFUSED = (404, {"error": "unknown class or key"})
_UNAVAILABLE = (503, {"error": "unavailable"})


async def class_version_answer(query_string: bytes | str) -> tuple[int, dict]:
    """The route's answer to ``?code=...&key=...``: (status, body). 404 for anything but a class's follow or display
    key (nothing about the class), 503 while the database does not answer or no page has opened it here. With
    ``&after=N`` (the version the page drew), an answer that would say nothing new (the class open, its version N or
    less) is held until the version moves, the class closes, or HOLD_S passes (see _held)."""
    from starlette.datastructures import QueryParams

    params = QueryParams(query_string)
    code = params.get("code", "")[:_MAX_PARAM]
    key = params.get("key", "")[:_MAX_PARAM]
    after = params.get("after", "")[:_MAX_PARAM]
    answer = await _answer_now(code, key)
    drawn = int(after) if after.isascii() and after.isdigit() and len(after) <= 12 else None  # "²" is a digit too
    if drawn is not None and answer[0] == 200 and answer[1]["open"] and answer[1]["version"] <= drawn:
        if _held_now < MAX_HELD:  # beyond that, answered at once, as without ``after``
            answer = await _held(code, key, drawn)
    return answer


async def _answer_now(code: str, key: str) -> tuple[int, dict]:
    if len(code) != naming.CODE_LENGTH or not set(code) <= _CODE_CHARACTERS:
        return _REFUSED  # not a class code at all: no database query for it
    state = await _read_version(code)
    if state is False:
        return _UNAVAILABLE  # the database is not answering, or unreachable (no details): the page says so, asks again
    if state is None or not (
        hmac.compare_digest(state.follow_key.encode(), key.encode())  # a student's page
        or (state.display_key and hmac.compare_digest(state.display_key.encode(), key.encode()))  # the projector
    ):
        return _REFUSED
    return 200, {"version": state.version, "open": state.open, "layout": state.layout, "live": state.live}


async def _read_version(code: str):
    """The class's version: the shared reading (classroom_db), read again when older than VERSION_TTL_S; None for no
    such class; False when the database did not answer in ROUTE_WAIT_S, is unreachable, or no page has opened it in
    this process yet (a restart: the page asks again)."""
    state = database.cached_class_version(code)
    if state is not False:
        return state
    return (await _read_afresh(code))[0]


async def _read_afresh(code: str):
    """(the version read from the database, as _read_version; the read, when it still runs after ROUTE_WAIT_S: a
    database that hangs holds the thread until it answers)."""
    db = database.engine_for_routes()
    if db is None:
        return False, None
    try:  # on the class database's own bounded pool, never on the threads that serve pages and files
        future = gate().submit(lambda: database.read_class_version(code, db))
        return await asyncio.wait_for(asyncio.wrap_future(future), ROUTE_WAIT_S), None
    except TimeoutError:
        gate().abandon(future)  # later callers wait briefly: the database is known not to answer
        return False, future
    except Exception as exc:
        if not database_down(exc):
            raise
        return False, None


# A held check (``&after=``): a page asks once and is answered when the teacher acts, instead of asking every second.
# While pages of a class wait, one watcher per class reads its version every WATCH_EVERY_S (one small query) and
# wakes them all when it moved: every page hears of an action within about WATCH_EVERY_S instead of within its check
# interval, and a waiting class costs the server ten small queries a second instead of a request per page a second
# (docs/decisions/0002). A held request is a coroutine waiting on an event; at most MAX_HELD wait in a process (a
# page beyond that is answered at once, and asks again about a second later).
# The longest a check is held; the page then asks again at once. Short: a request that hangs (a connection lost on
# the way) cannot be told from a held one before the page gives up on it (after HOLD_S and one interval), and a page
# must notice every action within 4 s.
HOLD_S = 2.0
WATCH_EVERY_S = 0.1
MAX_HELD = 5000
_held_now = 0  # checks held in this process (on the event loop only)
_watches: dict[str, dict] = {}  # class code -> its watch; touched on the event loop only


def _says_something_new(state, after: int) -> bool:
    return state is False or state is None or not state.open or state.version > after


def _moved_on(state):
    """What of a reading a held page acts on."""
    return state if state is None or state is False else (state.version, state.open)


async def _held(code: str, key: str, after: int) -> tuple[int, dict]:
    """The answer once the class's watcher saw something new for a page that drew ``after`` (a later version, the
    class closed or gone, the database not answering), or after HOLD_S."""
    loop = asyncio.get_running_loop()
    deadline = loop.time() + HOLD_S
    watch = _watches.get(code)
    if watch is None:  # "seen": the watcher's last reading ("unread" before its first)
        watch = _watches[code] = {"seen": "unread", "moved": asyncio.Event(), "waiting": 0}
        watch["task"] = asyncio.ensure_future(_watch(code, watch))  # held here: a task nobody holds may be collected
    global _held_now
    watch["waiting"] += 1
    _held_now += 1
    try:
        # the reading and the event are taken together (no await between): the watcher changes both at once
        while watch["seen"] == "unread" or not _says_something_new(watch["seen"], after):
            remaining = deadline - loop.time()
            if remaining <= 0:
                break
            try:
                await asyncio.wait_for(watch["moved"].wait(), remaining)
            except TimeoutError:
                break
        if watch["seen"] is False:  # the watcher's read found the database not answering: say so now, not after a
            return _UNAVAILABLE  # second wait for it (the page then redraws and says so)
        return await _answer_now(code, key)
    finally:
        watch["waiting"] -= 1
        _held_now -= 1


async def _watch(code: str, watch: dict) -> None:
    """While pages of the class ``code`` wait: read its version every WATCH_EVERY_S (keeping the shared reading
    fresh); when the reading changed, wake every waiting page. Never a second read while one that did not answer in
    time still holds a database thread (a hung database would otherwise take every thread of the pool, one read a
    second, from the pages' own calls)."""
    hung = None
    try:
        while watch["waiting"] > 0:
            if hung is not None and not hung.done():
                state = False
            else:
                try:
                    state, hung = await _read_afresh(code)
                except Exception:  # not a database outage (a bug): the pages answer from their own reading
                    state, hung = False, None
            if watch["seen"] == "unread" or _moved_on(watch["seen"]) != _moved_on(state):
                watch["seen"] = state
                moved, watch["moved"] = watch["moved"], asyncio.Event()
                moved.set()
            await asyncio.sleep(WATCH_EVERY_S)
    finally:
        if _watches.get(code) is watch:
            del _watches[code]


async def _version_response(scope):
    """The route's response to the request ``scope``: the one both the route and VersionShortcut send."""
    from starlette.responses import JSONResponse

    status, body = await class_version_answer(scope["query_string"])
    return JSONResponse(body, status_code=status, headers=_HEADERS)


def routes() -> list:
    """The HTTP route server.py mounts beside the app."""
    from starlette.routing import Route

    async def class_version_endpoint(request):
        return await _version_response(request.scope)

    return [Route(ROUTE_PATH, class_version_endpoint, methods=["GET"])]


class VersionShortcut:
    """ASGI middleware (server.py, first in line): answers GET and HEAD of the version route itself, with the route's
    own answer and headers, before Streamlit's middleware stack (path checks, sessions, compression, exception
    handling, the router), which a request would pay on the server's one interpreter: every page of a class
    asks again at least every HOLD_S, and while a teacher's action redraws 300 pages these requests run beside the
    redraws (docs/decisions/0002-follow-the-teacher-over-http.md). Any other request, and any other method on the
    route (405 from its Route), goes on."""

    def __init__(self, app) -> None:
        self.app = app

    async def __call__(self, scope, receive, send) -> None:
        ours = scope["type"] == "http" and scope["path"] == ROUTE_PATH and not scope.get("root_path")
        if not ours or scope["method"] not in ("GET", "HEAD"):
            await self.app(scope, receive, send)
            return
        response = await _version_response(scope)
        await response(scope, receive, send)  # for HEAD, uvicorn sends the headers only
