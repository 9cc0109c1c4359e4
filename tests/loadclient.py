"""A simulated student at Streamlit's WebSocket protocol level, a test helper (used by the deploy smoke,
container and bar predictor protocol tests as ``loadclient``, and by bench/bench_load.py as ``tests.loadclient``).

What a browser does, in the messages of ``streamlit.proto``:

1. ``GET /<page>?<query>`` (through HAProxy this is where the affinity cookie is set);
2. open the WebSocket ``/_stcore/stream`` (subprotocol ``streamlit``, the page's cookies, an Origin
   matching the host), then send ``BackMsg.rerun_script`` with a ``ClientState``: the query string, the
   page's url path as ``page_name`` (the first load; later runs send the ``page_script_hash`` the server
   answered with in ``navigation``), the widget states the browser holds, the hashes of cached messages
   and the context (time zone, locale, URL);
3. read ``ForwardMsg`` until ``script_finished`` says the run ended (``FINISHED_EARLY_FOR_RERUN`` means
   another run follows: ``st.rerun()``); ``delta`` messages carry the elements (widgets with their ids,
   values and the fragment they belong to; exceptions), ``page_info_changed`` the new query string.

A change of a widget inside an ``@st.fragment`` is sent with that fragment's id: the server reruns the
fragment only (``FINISHED_FRAGMENT_RUN_SUCCESSFULLY``), as for a browser.

If the connection drops (a replica killed), the student reconnects like the browser does: a new
WebSocket (through HAProxy: redispatched to a live replica) and a rerun with the same URL and widget
states, so the page state comes back from the URL. ``reconnects`` counts these.
"""

from __future__ import annotations

import asyncio
import json
import random
import time
import urllib.parse
from dataclasses import dataclass, field

import websockets
from streamlit.proto.BackMsg_pb2 import BackMsg
from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
from streamlit.proto.NumberInput_pb2 import NumberInput
from streamlit.proto.Slider_pb2 import Slider
from streamlit.proto.WidgetStates_pb2 import WidgetState

from lab.models.binomial_lab import LAB_P, N
from lab.models.blocks import BlocksModel
from lab.models.explorer import R_PREDICTION, Z_PREDICTION
from lab.models.numerics import NumericsModel
from lab.models.pitfalls import PitfallsModel
from lab.models.sampling import SamplingModel
from lab.views.shell import page_named

FINISHED = ForwardMsg.ScriptFinishedStatus
# a custom component's triggers travel as one widget of their own, named after the component (Streamlit 1.67)
TRIGGER_ID = "$$STREAMLIT_INTERNAL_KEY_{}__events"
DONE_STATUSES = {FINISHED.FINISHED_SUCCESSFULLY, FINISHED.FINISHED_FRAGMENT_RUN_SUCCESSFULLY}


def is_loopback(url: str) -> bool:
    """Whether ``url`` names this machine: the benches drive only a server here, never one elsewhere."""
    return urllib.parse.urlsplit(url).hostname in ("127.0.0.1", "localhost", "::1")


def _address(url_path: str, query: str = "") -> str:
    """Where a link opens the app's page ``url_path`` (lab/views/shell.py, the one list of pages), with a query."""
    address = page_named(url_path).address
    return f"{address}?{query}" if query else address


# The pages a student opens in class: address (the default page is served at "/") and the numeric
# controls a student changes there (keys, from the pages' declared controls; one ending in "_" is a prefix; None:
# every number input and slider).
# Exercises: the assignment's seed and count are the teacher's (changing them gives a new assignment); the page
# draws only its open tab, so the students open the link of the predict-the-bars tab. A path may carry a query.
PAGES: dict[str, tuple[str, tuple[str, ...] | None]] = {
    "binomial-lab": (_address("binomial-lab"), (LAB_P.key, N.key, "bl_pred_")),
    "explorer": (_address("explorer"), (f"{R_PREDICTION.key}_", Z_PREDICTION.key)),
    # a prediction change alone: a typed box, and the same pages predicting with the bar predictor (a key
    # starting with "@": one bar dragged by 0.01 and released)
    "binomial-lab-boxes": (_address("binomial-lab"), ("bl_pred_",)),
    "binomial-lab-bars": (_address("binomial-lab"), ("@bl_bars",)),
    "explorer-bars": (_address("explorer"), ("@ex_bars",)),
    "exercises": (_address("exercises", "tab=Predict+the+bars"), ("exq_bar_",)),
    # an assignment link as the teacher shares it: the problems tab, nothing numeric to move (for join storms)
    "exercises-link": (_address("exercises", "seed=1&count=5&level=basic"), ()),
    # the Class page as a student opens it before joining (the join form): nothing numeric to move (join storms)
    "class": (_address("class"), ()),
    # the pages for self-study and engineers, with their numeric controls
    "numerics": (_address("numerics"), tuple(NumericsModel.PARAMS[f] for f in ("temperature", "top_k", "top_p"))),
    "sampling": (_address("sampling"), tuple(SamplingModel.PARAMS[f] for f in ("steps", "seed", "guess"))),
    "blocks": (_address("blocks"), tuple(BlocksModel.PARAMS[f] for f in ("block", "length", "seed", "alpha", "cost"))),
    "pitfalls": (_address("pitfalls"), tuple(PitfallsModel.PARAMS[f] for f in ("block", "length"))),
    "minimal": ("", None),  # bench/minimal_app.py
}


class StudentError(Exception):
    """A run that did not finish (timeout, closed connection after retries, compile error)."""


def user_key(widget_id: str) -> str:
    """The widget's key from its id ``$$ID-<hash>-<key>`` ('' for a widget without a key)."""
    parts = widget_id.split("-", 2)
    return parts[2] if len(parts) == 3 and parts[0] == "$$ID" else ""


@dataclass
class Widget:
    id: str
    key: str
    kind: str  # "number_input" or "slider"
    is_int: bool
    min: float
    max: float
    step: float
    value: float
    fragment_id: str
    disabled: bool


@dataclass
class RunResult:
    seconds: float
    exceptions: list[str]
    messages: int


@dataclass
class Student:
    base_url: str  # http://host:port
    page: str = ""  # url path of the page ('' = the default page)
    widget_prefixes: tuple[str, ...] | None = None  # keys of the widgets this student changes, as in PAGES
    query: str = ""  # initial query string without '?'
    timeout: float = 30.0  # a run that takes longer is an error
    reconnect_for: float = 20.0  # how long to keep retrying a dropped connection
    rng: random.Random = field(default_factory=random.Random)
    source: str = ""  # the local address to connect from (127.0.0.x: another "client address" on this machine)

    cookies: dict[str, str] = field(default_factory=dict)
    page_script_hash: str = ""
    widgets: dict[str, Widget] = field(default_factory=dict)
    sent_states: dict[str, WidgetState] = field(default_factory=dict)
    values: dict[str, float] = field(default_factory=dict)  # each widget's value as the browser shows it, by id
    cached: dict[str, ForwardMsg] = field(default_factory=dict)
    exceptions: list[str] = field(default_factory=list)
    components: dict[str, tuple[str, str, str]] = field(default_factory=dict)  # key -> (id, fragment id, data JSON)
    texts: dict[str, str] = field(default_factory=dict)  # a text box's label -> its widget id (the last run's)
    buttons: dict[str, tuple[str, str]] = field(default_factory=dict)  # a button's label -> (widget id, fragment id)
    alerts: list[str] = field(default_factory=list)  # the texts of the last run's error, warning and info boxes
    reconnects: int = 0
    reconnected_at: float = 0.0  # time.monotonic() of the last reconnection's first finished run
    page_not_found: bool = False
    runs: int = 0
    ws: object = None

    def __post_init__(self) -> None:
        if "?" in self.page:  # a page given with its query (PAGES): the path, and the query the browser sends
            self.page, self.query = self.page.split("?", 1)

    # --- connection ---------------------------------------------------------------------------------

    async def http_get(self) -> int:
        """GET the page like a browser (keeps the cookies it sets); returns the status code."""
        url = urllib.parse.urlsplit(self.base_url)
        path = "/" + self.page + (f"?{self.query}" if self.query else "")
        local = {"local_addr": (self.source, 0)} if self.source else {}
        reader, writer = await asyncio.wait_for(
            asyncio.open_connection(url.hostname, url.port, **local), self.timeout
        )
        try:
            request = f"GET {path} HTTP/1.1\r\nHost: {url.netloc}\r\nConnection: close\r\n{self._cookie_header()}\r\n"
            writer.write(request.encode())
            await writer.drain()
            head = (await asyncio.wait_for(reader.readuntil(b"\r\n\r\n"), self.timeout)).decode("latin-1")
            await asyncio.wait_for(reader.read(), self.timeout)
        finally:
            writer.close()
        lines = head.split("\r\n")
        for line in lines[1:]:
            name, _, value = line.partition(":")
            if name.strip().lower() == "set-cookie":
                self._keep_cookie(value)
        return int(lines[0].split()[1])

    def _keep_cookie(self, header_value: str) -> None:
        pair = header_value.strip().split(";", 1)[0]
        name, _, value = pair.partition("=")
        if name:
            self.cookies[name.strip()] = value.strip()

    def _cookie_header(self) -> str:
        if not self.cookies:
            return ""
        return "Cookie: " + "; ".join(f"{k}={v}" for k, v in self.cookies.items()) + "\r\n"

    async def connect(self) -> None:
        ws_url = self.base_url.replace("http", "ws", 1) + "/_stcore/stream"
        headers = {"Cookie": self._cookie_header()[8:-2]} if self.cookies else {}
        self.ws = await websockets.connect(
            ws_url,
            subprotocols=[websockets.Subprotocol("streamlit")],
            origin=websockets.Origin(self.base_url),
            additional_headers=headers,
            max_size=None,
            open_timeout=self.timeout,
            **({"local_addr": (self.source, 0)} if self.source else {}),
        )
        for name, value in self.ws.response.headers.raw_items():  # HAProxy sets its cookie on a redispatch
            if name.lower() == "set-cookie":
                self._keep_cookie(value)

    async def close(self) -> None:
        if self.ws is not None:
            await self.ws.close()
            self.ws = None

    async def load(self) -> RunResult:
        """A student opening the page: GET, WebSocket, first run. Returns the first run's result."""
        start = time.perf_counter()
        try:
            await self.http_get()
            await self.connect()
        except websockets.WebSocketException as exc:  # e.g. HTTP 503 from HAProxy: no replica up
            raise StudentError(f"could not open the session: {exc}") from None
        result = await self._run(fragment_id="")
        result.seconds = time.perf_counter() - start
        return result

    async def reconnect(self) -> None:
        """Reopen the session after a dropped connection, as the browser does: same URL, same widget states."""
        deadline = time.monotonic() + self.reconnect_for
        self.reconnects += 1
        while True:
            await self.close_quietly()
            try:
                await self.connect()
                await self._send_rerun(fragment_id="")
                await self._receive_until_finished(time.perf_counter())
                self.reconnected_at = time.monotonic()
                return
            except (TimeoutError, OSError, websockets.ConnectionClosed, websockets.InvalidHandshake):
                if time.monotonic() > deadline:
                    raise StudentError(f"could not reconnect within {self.reconnect_for} s") from None
                await asyncio.sleep(0.5)

    async def close_quietly(self) -> None:
        try:
            await self.close()
        except Exception:  # noqa: BLE001 - a dead connection may fail to close; it is replaced anyway
            self.ws = None

    # --- interaction --------------------------------------------------------------------------------

    def changeable(self) -> list[Widget]:
        wanted = self.widget_prefixes
        return [
            w
            for w in self.widgets.values()
            if not w.disabled
            and (wanted is None or any(w.key.startswith(k) if k.endswith("_") else w.key == k for k in wanted))
        ]

    def can_change(self) -> bool:
        """Something on the page this student moves: a numeric widget or a bar predictor named in PAGES."""
        return bool(self.changeable()) or any(
            k.startswith("@") and k[1:] in self.components for k in self.widget_prefixes or ()
        )

    async def change_widget(self, widget: Widget | None = None) -> RunResult:
        """Move one numeric widget by one step (up or down, staying in range), like an arrow key; time the
        rerun (a fragment rerun when the widget is in a fragment) until the server says it finished."""
        bars = [k[1:] for k in self.widget_prefixes or () if k.startswith("@")]
        if widget is None and bars:
            return await self.move_bar(self.rng.choice(bars))
        choices = self.changeable()
        if widget is None:
            if not choices:
                raise StudentError(f"no numeric widget to change on page {self.page!r}")
            widget = self.rng.choice(choices)
        direction = self.rng.choice((-1, 1))
        value = widget.value + direction * widget.step
        if not widget.min - 1e-9 <= value <= widget.max + 1e-9:
            value = widget.value - direction * widget.step
        value = round(value) if widget.is_int else round(value, 10)
        widget.value = self.values[widget.id] = value
        state = WidgetState(id=widget.id)
        if widget.kind == "slider":
            state.double_array_value.data.append(value)
        elif widget.is_int:
            state.int_value = int(value)
        else:
            state.double_value = value
        self.sent_states[widget.id] = state
        return await self._run(fragment_id=widget.fragment_id)

    async def move_bar(self, key: str) -> RunResult:
        """A bar of the bar predictor ``key`` dragged by 0.01 and released: the heights it sends, as its JavaScript
        does (lab/views/ui/assets/bar_predictor.js)."""
        import json

        heights = json.loads(self.components[key][2])["values"]
        i = self.rng.randrange(len(heights))
        step = self.rng.choice((-0.01, 0.01))
        heights[i] = round(heights[i] + (step if 0 <= heights[i] + step <= 1 else -step), 2)
        return await self.send_component(key, "bars", heights)

    async def send_component(self, key: str, event: str, value=None, *, raw: str | None = None, state: bool = False):
        """What a custom component (``st.components.v2``) with ``key`` sends: a trigger ``event`` with ``value``
        (JSON), as its JavaScript's ``setTriggerValue`` does; ``raw``: the JSON text as sent, whatever it holds;
        ``state``: a forged state of the component itself instead of a trigger. Times the rerun."""
        import json

        component_id, fragment_id, _data = self.components[key]
        text = raw if raw is not None else json.dumps({event: value} if state else [{"event": event, "value": value}])
        message = WidgetState(id=component_id if state else TRIGGER_ID.format(component_id))
        if state:
            message.json_value = text
        else:
            message.json_trigger_value = text
        self.sent_states[message.id] = message
        try:
            return await self._run(fragment_id=fragment_id)
        finally:
            if not state:  # a trigger is sent once: the browser does not send it again with the next run
                self.sent_states.pop(message.id, None)

    async def press(self, label: str, texts: dict[str, str] | None = None) -> RunResult:
        """Type ``texts`` (a text box's label -> what is typed) and press the button ``label``, as a browser sends a
        form's submit: every typed value with the button's trigger, in one rerun. Times the rerun."""
        for box, typed in (texts or {}).items():
            state = WidgetState(id=self.texts[box])
            state.string_value = typed
            self.sent_states[state.id] = state
        button_id, fragment_id = self.buttons[label]
        trigger = WidgetState(id=button_id)
        trigger.trigger_value = True
        self.sent_states[button_id] = trigger
        try:
            return await self._run(fragment_id=fragment_id)
        finally:
            self.sent_states.pop(button_id, None)  # a trigger is sent once

    async def _run(self, fragment_id: str) -> RunResult:
        start = time.perf_counter()
        try:
            await self._send_rerun(fragment_id)
            return await self._receive_until_finished(start)
        except (OSError, websockets.ConnectionClosed) as exc:
            if not self.reconnect_for:
                raise StudentError(f"connection lost: {exc!r}") from None
            await self.reconnect()  # the browser reconnects and reruns the whole page from the URL
            return RunResult(time.perf_counter() - start, [], 0)

    async def _send_rerun(self, fragment_id: str) -> None:
        msg = BackMsg()
        state = msg.rerun_script
        state.query_string = self.query
        state.page_script_hash = self.page_script_hash
        if not self.page_script_hash:
            state.page_name = self.page
        state.fragment_id = fragment_id
        state.widget_states.widgets.extend(self.sent_states.values())
        state.cached_message_hashes.extend(self.cached)
        info = state.context_info
        info.timezone, info.timezone_offset, info.locale = "UTC", 0, "en-US"
        info.url = self.base_url + "/" + self.page + (f"?{self.query}" if self.query else "")
        info.color_scheme = "light"
        await self.ws.send(msg.SerializeToString())

    async def _receive_until_finished(self, start: float) -> RunResult:
        deadline = start + self.timeout
        messages = 0
        exceptions: list[str] = []
        while True:
            remaining = deadline - time.perf_counter()
            if remaining <= 0:
                raise StudentError(f"run did not finish within {self.timeout} s")
            try:
                data = await asyncio.wait_for(self.ws.recv(), remaining)
            except TimeoutError:
                raise StudentError(f"run did not finish within {self.timeout} s") from None
            msg = ForwardMsg()
            msg.ParseFromString(data)
            messages += 1
            if msg.HasField("ref_hash"):
                cached = self.cached.get(msg.ref_hash)
                if cached is None:
                    continue
                metadata = msg.metadata
                msg = ForwardMsg()
                msg.CopyFrom(cached)
                msg.metadata.CopyFrom(metadata)
            elif msg.hash and msg.metadata.cacheable:
                self.cached[msg.hash] = msg
            kind = msg.WhichOneof("type")
            if kind == "delta":
                self._read_delta(msg, exceptions)
            elif kind == "navigation":
                self.page_script_hash = msg.navigation.page_script_hash
            elif kind == "new_session":  # a full run starts: the page's widgets are drawn again
                self.widgets.clear()
                self.alerts.clear()
                self.texts.clear()
                self.buttons.clear()
                if msg.new_session.page_script_hash:
                    self.page_script_hash = msg.new_session.page_script_hash
            elif kind == "page_info_changed":
                self.query = msg.page_info_changed.query_string
            elif kind == "page_not_found":
                self.page_not_found = True  # the browser shows a notice and runs the default page
            elif kind == "script_finished":
                status = msg.script_finished
                if status == FINISHED.FINISHED_WITH_COMPILE_ERROR:
                    raise StudentError("the script did not compile")
                if status in DONE_STATUSES:
                    self.runs += 1
                    self.exceptions.extend(exceptions)
                    return RunResult(time.perf_counter() - start, exceptions, messages)

    def _read_delta(self, msg: ForwardMsg, exceptions: list[str]) -> None:
        delta = msg.delta
        if delta.WhichOneof("type") != "new_element":
            return
        element = delta.new_element
        kind = element.WhichOneof("type")
        if kind == "exception":
            exceptions.append(f"{element.exception.type}: {element.exception.message}")
        elif kind == "alert":
            self.alerts.append(element.alert.body)
        elif kind == "text_input":
            self.texts[element.text_input.label] = element.text_input.id
        elif kind == "button":
            self.buttons[element.button.label] = (element.button.id, delta.fragment_id)
        elif kind == "bidi_component":
            w = element.bidi_component
            key = user_key(w.id)
            if key:
                self.components[key] = (w.id, delta.fragment_id, w.json)
        elif kind == "number_input":
            w = element.number_input
            value = w.value if w.set_value else w.default
            self._record(w.id, "number_input", w.data_type == NumberInput.INT, w, value, delta.fragment_id)
        elif kind == "slider":
            w = element.slider
            if len(w.default) != 1 or w.data_type not in (Slider.INT, Slider.FLOAT):
                return  # range sliders and date sliders are not moved
            value = w.value[0] if w.set_value and w.value else w.default[0]
            self._record(w.id, "slider", w.data_type == Slider.INT, w, value, delta.fragment_id)

    def _record(self, widget_id, kind, is_int, proto, value, fragment_id) -> None:
        if proto.set_value or widget_id not in self.values:
            self.values[widget_id] = value  # the server set it, or the widget is new: its default
        value = self.values[widget_id]  # otherwise the browser keeps what it shows
        self.widgets[widget_id] = Widget(
            id=widget_id,
            key=user_key(widget_id),
            kind=kind,
            is_int=is_int,
            min=proto.min,
            max=proto.max,
            step=proto.step or (1 if is_int else 0.01),
            value=value,
            fragment_id=fragment_id,
            disabled=proto.disabled,
        )


# --- a student's Class page following the teacher (bench/bench_classroom.py, tests/browser/test_hall_browser.py) ---

DRAWN = (0, 3)  # ScriptFinishedStatus: FINISHED_SUCCESSFULLY, FINISHED_FRAGMENT_RUN_SUCCESSFULLY


async def http_checks(
    base_http: str,
    path: str,
    every_ms: int,
    drawn: int,
    counters: dict,
    stop: asyncio.Event,
    on_change,
    layout=None,
    live=None,
    on_current=None,
    connection: dict | None = None,
) -> None:
    """The page's follow component (lab.views.live_class.follow), as a browser runs it: GET the class version, saying
    which
    one the page drew (``after``: the server holds the answer until there is something new), over one kept-alive
    HTTP/1.1 connection, again at once after an answer that said nothing new (at most about twice a second), else
    about every ``every_ms``; when it moved past ``drawn`` (or the class closed), call ``on_change(whole)`` (the
    browser's trigger) and stop: ``whole`` when the whole page must run (the route's layout is not ``layout``, the
    page's; the class closed or is unknown), else what holds the follower. A new version whose ``live`` is the
    page's is nothing the page draws: taken without a run (``on_current(version)``). ``connection``: the page's
    own (a dict this keeps it in), kept for the next follower's checks as a browser keeps its connections: closed
    only when this stops with a check still held (a browser aborting that fetch drops its connection)."""
    from urllib.parse import urljoin, urlsplit

    url = urlsplit(urljoin(base_http + "/class", path))
    kept = connection is not None
    connection = connection if kept else {}

    async def ask() -> tuple[int, dict]:
        reused = connection.get("writer") is not None
        if not reused:
            connection["reader"], connection["writer"] = await asyncio.open_connection(url.hostname, url.port)
        reader, writer = connection["reader"], connection["writer"]
        try:
            writer.write(f"GET {url.path}?{url.query}&after={drawn} HTTP/1.1\r\nHost: {url.netloc}\r\n\r\n".encode())
            head = await reader.readuntil(b"\r\n\r\n")
        except (ConnectionError, asyncio.IncompleteReadError):
            writer.close()
            connection["writer"] = None
            if reused:  # a kept connection the server closed meanwhile: once more on a new one, as a browser does
                return await ask()
            raise
        length = next(
            int(line.split(b":")[1]) for line in head.split(b"\r\n") if line.lower().startswith(b"content-length:")
        )
        return int(head.split(b" ")[1]), json.loads(await reader.readexactly(length))

    pause = 0.0
    stopping = asyncio.ensure_future(stop.wait())
    asked = None
    try:
        while not stop.is_set():
            await asyncio.sleep(pause)
            started = time.monotonic()
            asked = asyncio.ensure_future(ask())
            await asyncio.wait((asked, stopping), return_when=asyncio.FIRST_COMPLETED)
            if not asked.done():  # the page closed while its check was held
                asked.cancel()
                return
            status, body = asked.result()
            counters["http_checks"] = counters.get("http_checks", 0) + 1
            again = 0.0 if time.monotonic() - started >= every_ms / 2000 else every_ms / 2000
            pause = every_ms / 1000
            if status == 404 or (status == 200 and (body["version"] > drawn or not body["open"])):
                whole = status == 404 or not body["open"] or (layout is not None and body.get("layout") != layout)
                if not whole and live is not None and body.get("live") == live:
                    drawn = body["version"]
                    if on_current is not None:
                        on_current(drawn)
                    pause = again
                    continue
                await on_change(whole)
                return
            if status == 200:
                pause = again
    finally:  # also when this task is cancelled (the page drew a new follower): its held request goes too
        stopping.cancel()
        held = asked is not None and not asked.done()
        if held:
            asked.cancel()
        if connection.get("writer") is not None and (held or not kept or stop.is_set()):
            connection["writer"].close()
            connection["writer"] = None


def lends_page_redraw(component) -> bool:
    """A components element whose trigger reruns a student page's activity part
    (lab.views.live_class.follow.page_redraw, or
    the bar predictor standing in for it)."""
    name = component.component_name
    return name.endswith("class_page_redraw") or (
        name.endswith("bar_predictor") and bool(json.loads(component.json).get("redraws_page"))
    )


async def hall_page(base_ws: str, query: str, page_name: str, page: dict, stop: asyncio.Event) -> None:
    """One student's browser tab, reduced to its protocol, for the hall bench: load the page, follow the teacher
    through the version route as the page's follow component does (lab.views.live_class.follow: every ``every_ms``, a
    full
    rerun when the version moved), and record in ``page`` the version each finished full run drew (``drawn``),
    when it finished (``at``), and how many elements each full run sent (``elements``)."""
    import websockets
    from streamlit.proto.BackMsg_pb2 import BackMsg
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    base_http = base_ws.replace("ws://", "http://", 1)
    async with websockets.connect(f"{base_ws}/_stcore/stream", max_size=None, ping_interval=None) as ws:
        state = {"hash": "", "version": None, "elements": 0, "task": None, "fragment": "", "page_fragment": ""}
        connection = {}  # the tab's connection for its checks, kept from one follower to the next

        async def rerun(whole=False):  # the follower's trigger reruns what holds it (the page, or its fragment);
            # the page's own trigger (lab.views.live_class.follow.page_redraw) reruns what holds it: on a
            msg = BackMsg()
            msg.rerun_script.query_string = query  # student's page its activity part, on the projector the page
            msg.rerun_script.page_name = page_name
            msg.rerun_script.page_script_hash = state["hash"]
            msg.rerun_script.fragment_id = state["page_fragment"] if whole else state["fragment"]
            await ws.send(msg.SerializeToString())

        async def submitted():  # a Submit redraws the student's whole page (saved at the storage level here)
            msg = BackMsg()
            msg.rerun_script.query_string = query
            msg.rerun_script.page_name = page_name
            msg.rerun_script.page_script_hash = state["hash"]
            await ws.send(msg.SerializeToString())

        def current(version):  # a new version this page draws nothing of: shown as it is, no run, no element
            page["drawn"], page["at"] = version, time.monotonic()
            page.setdefault("elements", []).append(0)

        page["submitted"] = submitted
        await rerun()
        while not stop.is_set():
            try:
                raw = await asyncio.wait_for(ws.recv(), timeout=0.5)
            except TimeoutError:
                continue
            msg = ForwardMsg()
            msg.ParseFromString(raw)
            kind = msg.WhichOneof("type")
            if kind == "navigation":
                state["hash"] = msg.navigation.page_script_hash
            elif kind == "new_session":
                state["elements"], state["version"] = 0, None
            elif kind == "delta" and msg.delta.WhichOneof("type") == "new_element":
                state["elements"] += 1
                element = msg.delta.new_element
                if element.WhichOneof("type") == "bidi_component" and lends_page_redraw(element.bidi_component):
                    state["page_fragment"] = msg.delta.fragment_id
                if element.WhichOneof("type") == "bidi_component" and element.bidi_component.component_name.endswith(
                    "class_follower"
                ):
                    data = json.loads(element.bidi_component.json)
                    state["version"], state["fragment"] = data["version"], msg.delta.fragment_id
                    if state["task"] is not None:
                        state["task"].cancel()
                    state["task"] = asyncio.create_task(
                        http_checks(
                            base_http, data["path"], data["every_ms"], data["version"], {}, stop, rerun,
                            data.get("layout"), data.get("live"), current, connection,
                        )
                    )
            elif kind == "script_finished" and msg.script_finished in DRAWN and state["version"] is not None:
                page["drawn"], page["at"] = state["version"], time.monotonic()
                page["runs"] = page.get("runs", 0) + 1
                page.setdefault("elements", []).append(state["elements"])
        if state["task"] is not None:
            state["task"].cancel()
            await asyncio.gather(state["task"], return_exceptions=True)
        if connection.get("writer") is not None:
            connection["writer"].close()
