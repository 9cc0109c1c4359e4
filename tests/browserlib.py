"""Driving the app in a browser (no pytest): start a Streamlit server on a free port, wait for runs, read
charts. The one home of that code for the browser tests (tests/browser/, through their conftest.py) and
the benchmarks that start servers (bench/bench_pages.py, bench_load.py, bench_classroom.py). A test helper, so it
lives under tests/: the tests import it as ``browserlib`` (tests/ is on their path), the benchmarks as
``tests.browserlib``; tests never import a benchmark. See tests/browser/conftest.py's docstring.
"""

from __future__ import annotations

import atexit
import json
import os
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from collections.abc import Iterator
from contextlib import contextmanager
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]  # the repository (this file is in tests/)
CHROMIUM = "/usr/bin/chromium"
CHROMIUM_ARGS = [
    "--no-sandbox",
    "--disable-gpu",
    "--disable-background-networking",
    "--disable-component-update",
    "--disable-sync",
    "--no-first-run",
]
DESKTOP = {"width": 1280, "height": 800}
PHONE = {"width": 390, "height": 844}
IDLE_SELECTOR = "[data-testid=stApp][data-test-script-state=notRunning]"
RUNNING_SELECTOR = "[data-testid=stApp][data-test-script-state=running]"
CONNECTED_SELECTOR = "[data-testid=stApp][data-test-connection-state=CONNECTED]"


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def start_streamlit(
    script: str | Path = "server.py",  # what ./run serves: app.py plus the class-version route
    port: int | None = None,
    cwd: Path = ROOT,
    timeout: float = 60,
    extra: tuple[str, ...] = (),
    quiet: bool = False,
    env: dict[str, str | None] | None = None,
):
    """Start a headless Streamlit server; return (process, base_url) once /_stcore/health says ok.

    ``extra`` adds options (``--server.disconnectedSessionTTL 10``); ``env`` sets the server's environment
    variables (None: unset), and only the server's: the test process keeps its own. The server's log (stderr)
    goes to a file, read with ``server_log(proc)`` (``quiet``: to /dev/null), never to a pipe nobody reads while
    the server runs: a full pipe (64 KiB) blocks the server's event loop on its next log line, and every session
    then stops getting answers (seen with 300 sessions in bench/bench_classroom.py, where Streamlit logged a line
    for each timed fragment rerun that arrived during a full run)."""
    port = port or free_port()
    log_fd, log_path = tempfile.mkstemp(prefix="streamlit-server-", suffix=".log")
    atexit.register(_remove, log_path)
    if quiet:
        os.close(log_fd)
        log_fd = subprocess.DEVNULL
    proc = subprocess.Popen(
        [
            sys.executable,
            "-m",
            "streamlit",
            "run",
            str(script),
            "--server.headless",
            "true",
            "--server.port",
            str(port),
            "--server.address",
            "127.0.0.1",
            "--server.fileWatcherType",
            "none",
            "--browser.gatherUsageStats",
            "false",
            *extra,
        ],
        cwd=cwd,
        stdout=subprocess.DEVNULL,
        stderr=log_fd,
        # as ./run: uvicorn believes no proxy, the app decides (docs/security.md)
        env={k: v for k, v in {**os.environ, "FORWARDED_ALLOW_IPS": "", **(env or {})}.items() if v is not None},
    )
    if not quiet:
        os.close(log_fd)
    proc.log_path = log_path
    url = f"http://127.0.0.1:{port}"
    deadline = time.monotonic() + timeout
    while time.monotonic() < deadline:
        if proc.poll() is not None:
            raise RuntimeError(f"streamlit exited with {proc.returncode}: {server_log(proc)[-2000:]}")
        try:
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if response.read().decode().strip() == "ok":
                    return proc, url
        except OSError:
            pass
        time.sleep(0.2)
    stop_process(proc)
    raise RuntimeError(f"streamlit did not become healthy on port {port} within {timeout} s")


def start_serve(
    run_dir: Path, *, replicas: int = 2, app: str | None = None, env: dict | None = None, log: Path | None = None,
    timeout: float = 180,
):
    """deploy/serve (as a teacher runs it): ``replicas`` replicas (of ``app``, default server.py) behind HAProxy
    on a free loopback port, its state in ``run_dir``; (process, url) once every replica is in replicas.json and
    HAProxy answers the health check. ``env`` adds to the environment; ``log`` takes serve's output."""
    port = free_port()
    command = [str(ROOT / "deploy" / "serve"), "--replicas", str(replicas), "--port", str(port)]
    command += ["--address", "127.0.0.1", "--run-dir", str(run_dir)] + (["--app", app] if app else [])
    out = log.open("w") if log else subprocess.DEVNULL
    proc = subprocess.Popen(
        command, cwd=ROOT, stdout=out, stderr=subprocess.STDOUT, env={**os.environ, **(env or {})}
    )
    if log:
        out.close()
    url, deadline = f"http://127.0.0.1:{port}", time.monotonic() + timeout
    while time.monotonic() < deadline and proc.poll() is None:
        try:
            state = json.loads((Path(run_dir) / "replicas.json").read_text())
            with urllib.request.urlopen(f"{url}/_stcore/health", timeout=2) as response:
                if len(state) == replicas and response.read().decode().strip() == "ok":
                    return proc, url
        except (OSError, ValueError):
            pass
        time.sleep(0.5)
    stop_serve(proc)
    said = log.read_text()[-2000:] if log else ""
    raise RuntimeError(f"deploy/serve --replicas {replicas} did not come up within {timeout} s {said}")


def stop_serve(proc: subprocess.Popen) -> None:
    """SIGTERM: serve stops its replicas and HAProxy."""
    proc.send_signal(signal.SIGTERM)
    try:
        proc.wait(timeout=60)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def haproxy_stats(run_dir: Path) -> dict[str, dict[str, str]]:
    """HAProxy's ``show stat`` (its admin socket in ``run_dir``) for the replicas backend, by server name."""
    with socket.socket(socket.AF_UNIX) as sock:
        sock.connect(str(Path(run_dir) / "haproxy.sock"))
        sock.sendall(b"show stat\n")
        data = b""
        while chunk := sock.recv(65536):
            data += chunk
    lines = data.decode().splitlines()
    header = lines[0].lstrip("# ").split(",")
    rows = [dict(zip(header, line.split(","))) for line in lines[1:] if line]
    return {r["svname"]: r for r in rows if r.get("pxname") == "replicas" and r["svname"] != "BACKEND"}


@contextmanager
def app_with_class_data(data: str | Path) -> Iterator[str]:
    """The app (server.py) with its class database in the folder ``data`` (RESIDUAL_LAB_DATA, set for the server
    only, so nothing else in the test run sees it); yields its base url, stops the server after."""
    proc, url = start_streamlit("server.py", cwd=ROOT, env={"RESIDUAL_LAB_DATA": str(data)})
    try:
        yield url
    finally:
        stop_process(proc)


@contextmanager
def app_and_class_engine(data: str | Path) -> Iterator[tuple[str, object]]:
    """:func:`app_with_class_data`, and an engine on that class database: yields (base url, engine)."""
    from lab.classroom.db import make_engine

    with app_with_class_data(data) as url:
        engine = make_engine(f"sqlite:///{Path(data) / 'classroom.db'}")
        try:
            yield url, engine
        finally:
            engine.dispose()


def _remove(path: str) -> None:
    Path(path).unlink(missing_ok=True)


def server_log(proc: subprocess.Popen) -> str:
    """What a server started by start_streamlit wrote to stderr so far."""
    return Path(proc.log_path).read_text(errors="replace")


def stop_process(proc: subprocess.Popen) -> None:
    proc.terminate()
    try:
        proc.wait(timeout=10)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def wait_idle(page, timeout: float = 30_000, started_timeout: float = 400) -> None:
    """Wait for the run an interaction triggered: first (briefly) for the script to be running,
    then for it to be idle, then for every plotly chart on the page to be drawn."""
    try:
        page.wait_for_selector(RUNNING_SELECTOR, timeout=started_timeout, state="attached")
    except Exception:  # the run may already be over (or the change triggered none)
        pass
    page.wait_for_selector(IDLE_SELECTOR, timeout=timeout, state="attached")
    # elements whose code is still loading show as skeletons (first visit): wait until they are drawn
    page.wait_for_function("() => !document.querySelector('[data-testid=stSkeleton]')", timeout=timeout)
    page.wait_for_function(
        "() => [...document.querySelectorAll('[data-testid=stPlotlyChart]')]"
        ".every(el => el.querySelector('.js-plotly-plot .main-svg'))",
        timeout=timeout,
    )


OPEN_JS = """el => el.tagName === 'SUMMARY' ? el.parentElement.open : el.getAttribute('aria-expanded') === 'true'"""


def reveal_then(page, openers, target, tries: int = 4, wait: float = 4_000):
    """Open what hides ``target`` (each of ``openers``, a locator, is clicked only while ``target`` is hidden) and
    return ``target`` once visible. A dashboard that refreshes itself may redraw an expander or a popover closed
    between two clicks (seen in CI), so the openers are clicked again, up to ``tries`` times."""
    for attempt in range(tries):
        for opener in openers:
            if target.is_visible():
                break
            if opener.evaluate(OPEN_JS):
                continue
            opener.click()
        try:
            target.wait_for(state="visible", timeout=wait)
            return target
        except Exception:
            if attempt == tries - 1:
                raise
            wait_idle(page)
    return target


def count_runs(page) -> list[str]:
    """From now on, the returned list grows by one entry per script run the server starts for this page's
    WebSockets: every run, whoever asked for it (a whole-page run or a fragment's), begins with a ``new_session``
    message. The app's script-state attribute is no count: a short run can start and end between two paints and
    never show as running, and the attribute stays "running" across an immediate rerun."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg

    runs: list[str] = []

    def on_frame(payload) -> None:
        if isinstance(payload, (bytes, bytearray)):
            msg = ForwardMsg()
            msg.ParseFromString(bytes(payload))
            if msg.WhichOneof("type") == "new_session":
                runs.append(msg.new_session.page_script_hash)

    page.on("websocket", lambda ws: ws.on("framereceived", on_frame))
    return runs


def goto(page, url: str, timeout: float = 30_000) -> None:
    page.goto(url)
    page.wait_for_selector(CONNECTED_SELECTOR, timeout=timeout, state="attached")
    wait_idle(page, timeout)


PLOTLY_DATA_JS = """() => [...document.querySelectorAll('.js-plotly-plot')].map(plot => plot.data.map(trace => ({
    name: trace.name,
    x: trace.x ? Array.from(trace.x) : null,
    y: trace.y ? Array.from(trace.y) : null,
})))"""


def plotly_data(page) -> list[list[dict]]:
    return page.evaluate(PLOTLY_DATA_JS)


def screenshot_full(page, path, min_height: int = 800) -> None:
    """Screenshot the whole page: Streamlit scrolls inside stMain, so the viewport is stretched to the
    content's height for the shot and restored afterwards."""
    viewport = page.viewport_size
    height = page.evaluate(
        "() => Math.max(...[...document.querySelectorAll('[data-testid=stMain], [data-testid=stSidebar]')]"
        ".map(el => el.scrollHeight), 0)"
    )
    page.set_viewport_size({"width": viewport["width"], "height": max(min_height, int(height) + 40)})
    wait_idle(page, started_timeout=50)
    page.wait_for_timeout(800)  # plotly redraws responsive charts after the resize
    page.screenshot(path=str(path))
    page.set_viewport_size(viewport)


def wait_for_dashboard(page, timeout: float = 30_000) -> None:
    """After Start a class: the teacher's dashboard is drawn (its Class code metric). The address bar holds
    ``?code=C`` only once the page has the teacher token (lab.views.live_class.teacher_memory), so a test waits for
    the page, not for the token in the URL."""
    page.locator("[data-testid=stMetric]", has_text="Class code").first.wait_for(timeout=timeout)
    page.wait_for_function("() => !window.location.href.includes('teacher=')", timeout=timeout)


def teacher_token_of(page) -> str:
    """The teacher token of the dashboard, from its private teacher link (shown right after Start a class)."""
    from urllib.parse import parse_qs, urlsplit

    link = page.locator(".st-key-cls-teacher-link [data-testid=stCode]").first.inner_text().strip()
    return parse_qs(urlsplit(link).query)["teacher"][0]
