"""End to end on this machine: the container images, brought up from Kubernetes YAML with ``podman play kube``
(deploy/podman/residual-lab.yaml: PostgreSQL, 2 app replicas, HAProxy), then checked the way a class uses it.

1. the images build (deploy/container/build: the Debian base from Debian's packages, then the three images;
   a warm store reuses the base and the unchanged layers);
2. the app answers /_stcore/health through HAProxy, and HAProxy sees both replicas up;
3. cookie affinity: a new browser gets the replica cookie, students spread over both replicas, a request with a
   replica's cookie reaches that replica (HAProxy's per-replica request counters);
4. the WebSocket upgrade through HAProxy answers 101;
5. a class's data is in PostgreSQL: a class and a student made by replica 0 are rows in PostgreSQL, the
   student's page served by replica 1 shows no error, replica 1's class-version route reads the class and sees
   a teacher action taken on replica 0;
6. kill -9 of replica 0's process: podman restarts it, its students are sent to replica 1 and carry on (their
   page comes back from its URL), the students of replica 1 see no reconnection, HAProxy marks replica 0
   down and up again;
7. SIGTERM (podman stop) stops a replica with exit status 0, well within its grace period;
8. everything (pods, secret, volume, network) is removed at the end, also when a check fails.

It prints what it checked and how long each step took. Needs root and Debian's podman, buildah, runc,
mmdebstrap (.ci/run installs them): skipped without podman, except in CI (CI=true), where that is a failure.
Marked slow (minutes from an empty image store), so the fast suite leaves it out; .ci/run runs it.
"""

from __future__ import annotations

import asyncio
import base64
import json
import os
import random
import shutil
import signal
import socket
import sys
import threading
import time

import pytest

from loadclient import PAGES, Student
from podmanlib import (
    APP,
    POSTGRES,
    build_images,
    haproxy_stats,
    hold_the_lock,
    http_get,
    last_log_lines,
    left_behind,
    play,
    podman,
    podman_objects,
    prepare,
    residual_lab_pods,
    tear_down,
    wait_for,
)

PREFIX = "residual-lab-test"  # this test's network, secret and volume (a real deployment's are "residual-lab")
STUDENTS = 12
CHANGES = 6

pytestmark = [pytest.mark.containers, pytest.mark.slow]

if shutil.which("podman") is None or os.geteuid() != 0:
    reason = "podman is not installed" if shutil.which("podman") is None else "root podman is needed"
    if os.environ.get("CI") == "true":
        pytest.fail(f"{reason} (.ci/run installs Debian's podman and runs the tests as root)", pytrace=False)
    pytest.skip(reason, allow_module_level=True)


_pytest_config = None  # set by the test


def report(message: str) -> None:
    """What the test checked, on the terminal as it goes, also when the test passes (pytest captures print)."""
    capture = _pytest_config.pluginmanager.get_plugin("capturemanager") if _pytest_config else None
    if capture is None:
        print(f"containers: {message}", file=sys.stderr)
        return
    with capture.global_and_fixture_disabled():
        sys.stderr.write(f"containers: {message}\n")
        sys.stderr.flush()


def app_python(container: str, code: str) -> dict:
    """Run Python in a replica's container, with the app's code and its database URL; its JSON result."""
    result = podman("exec", container, "python", "-c", code, timeout=60)
    return json.loads(result.stdout.strip().splitlines()[-1])


def psql(sql: str) -> str:
    return podman("exec", POSTGRES, "psql", "-U", "lab", "-d", "residual_lab", "-Atc", sql, timeout=30).stdout.strip()


def remove_stale_test_deployment() -> None:
    """A run of this test (or of bench/hall_containers.py) that was killed leaves its pods (they live outside its
    processes); with the lock held, pods on one of their networks are such leftovers: remove them. Pods of a real
    deployment on this machine (not on such a network) are left alone, and the test does not run beside them."""
    ours, others = residual_lab_pods()
    if others:
        message = f"pods {others} of another residual-lab deployment run here; stop them first"
        if os.environ.get("CI") == "true":
            pytest.fail(message, pytrace=False)
        pytest.skip(message)
    if ours:
        report(f"removing pods a killed run left: {ours}")
        tear_down(None)


def dump_logs() -> None:
    report(last_log_lines())


# --- the students (tests/loadclient.py: Streamlit's WebSocket protocol) ----------------------------------------


async def open_students(url: str) -> list[Student]:
    page = PAGES["binomial-lab"][0]
    students = [  # each moves the lab's p (its value is in the URL: lab_p), as in tests/test_deploy_smoke.py
        Student(url, page, widget_prefixes=("bl_p",), timeout=60, reconnect_for=60, rng=random.Random(i))
        for i in range(STUDENTS)
    ]
    for s in students:  # one after another: leastconn spreads them over both replicas
        await s.load()
    return students


async def change_controls(students: list[Student], times: int) -> list[str]:
    failures: list[str] = []

    async def one(i: int, s: Student):
        for n in range(times):
            try:
                run = await s.change_widget()
            except Exception as exc:  # noqa: BLE001 - every failure is reported by the caller
                failures.append(f"student {i} change {n}: {exc!r}")
                return
            failures.extend(f"student {i} change {n}: exception on the page: {e}" for e in run.exceptions)
            await asyncio.sleep(0.2)

    await asyncio.gather(*(one(i, s) for i, s in enumerate(students)))
    return failures


class EventLoopThread:
    """One event loop for the whole test, in its own thread: the students' WebSockets belong to the loop that
    opened them, and Playwright's sync API (the browser tests' session fixture) may keep a loop running in the
    test's own thread, where asyncio.run() refuses to start."""

    def __init__(self) -> None:
        self.loop = asyncio.new_event_loop()
        self.thread = threading.Thread(target=self.loop.run_forever, daemon=True)
        self.thread.start()

    def run(self, coroutine, timeout: float = 300):
        return asyncio.run_coroutine_threadsafe(coroutine, self.loop).result(timeout)

    def close(self, students: list[Student]) -> None:
        async def close_all():
            await asyncio.gather(*(s.close_quietly() for s in students))

        try:
            self.run(close_all(), timeout=30)
        finally:
            self.loop.call_soon_threadsafe(self.loop.stop)
            self.thread.join(timeout=10)


def websocket_upgrade(port: int, cookie: str) -> str:
    """The status line HAProxy answers a browser's WebSocket request with (through to the replica)."""
    key = base64.b64encode(os.urandom(16)).decode()
    request = (
        "GET /_stcore/stream HTTP/1.1\r\n"
        f"Host: 127.0.0.1:{port}\r\n"
        "Upgrade: websocket\r\nConnection: Upgrade\r\n"
        f"Sec-WebSocket-Key: {key}\r\nSec-WebSocket-Version: 13\r\n"
        "Sec-WebSocket-Protocol: streamlit\r\n"
        f"Origin: http://127.0.0.1:{port}\r\n"
        f"Cookie: {cookie}\r\n\r\n"
    )
    with socket.create_connection(("127.0.0.1", port), timeout=10) as sock:
        sock.sendall(request.encode())
        head = b""
        while b"\r\n\r\n" not in head:
            chunk = sock.recv(4096)
            if not chunk:
                break
            head += chunk
    return head.split(b"\r\n", 1)[0].decode()


# --- the test -------------------------------------------------------------------------------------------------


def test_kubernetes_yaml_on_podman_end_to_end(tmp_path, request):
    global _pytest_config
    _pytest_config = request.config
    report("deploy/podman/residual-lab.yaml with podman play kube, end to end (tests/test_containers.py)")
    timings: dict[str, float] = {}
    started = time.monotonic()

    def lap(step: str, since: float) -> float:
        timings[step] = time.monotonic() - since
        return time.monotonic()

    lock = hold_the_lock()  # released when the file closes: at the end, or when the test fails before the pods
    t = time.monotonic()
    build = build_images()
    assert build.returncode == 0, build.stderr[-3000:]
    t = lap("build", t)
    report(f"images built in {timings['build']:.0f} s: {' / '.join(build.stderr.strip().splitlines())}")

    remove_stale_test_deployment()
    in_store = podman_objects()
    deployment = prepare(PREFIX, tmp_path)
    url, port, secrets_dir = deployment.url, deployment.port, deployment.secrets
    loop = EventLoopThread()
    students: list[Student] = []
    try:
        timings["play kube"] = play(deployment)
        t = time.monotonic()

        # 2. health through HAProxy, both replicas up
        wait_for("/_stcore/health through HAProxy", lambda: http_get(f"{url}/_stcore/health")[2] == b"ok", 120)
        wait_for("both replicas UP in HAProxy", lambda: all(r["status"] == "UP" for r in haproxy_stats().values()), 60)
        t = lap("healthy", t)
        report(
            f"play kube {timings['play kube']:.1f} s; /_stcore/health 'ok' through HAProxy on 127.0.0.1:{port} and"
            f" replicas r0, r1 UP {timings['healthy']:.1f} s later"
        )
        listing = podman("ps", "--format", "{{.Ports}}").stdout
        published = {item.strip() for line in listing.splitlines() for item in line.split(",") if "->" in item}
        assert published == {f"127.0.0.1:{port}->8080/tcp"}, listing
        report(f"only HAProxy is published, on 127.0.0.1:{port}")

        # 3. cookie affinity
        status, cookies, _ = http_get(f"{url}/")
        assert status == 200 and any(c.startswith("RLSERVER=r") for c in cookies), cookies
        before = {name: int(row["stot"]) for name, row in haproxy_stats().items()}
        for _ in range(10):
            status, cookies, _ = http_get(f"{url}/_stcore/health", cookie="RLSERVER=r1")
            # the cookie names a live replica: HAProxy sends the request there and sets no new one
            assert status == 200 and not any(c.startswith("RLSERVER=") for c in cookies), cookies
        after = {name: int(row["stot"]) for name, row in haproxy_stats().items()}
        assert (after["r0"] - before["r0"], after["r1"] - before["r1"]) == (0, 10), (before, after)
        students = loop.run(open_students(url))
        homes = [s.cookies.get("RLSERVER") for s in students]
        assert set(homes) == {"r0", "r1"}, homes
        failures = loop.run(change_controls(students, 2))
        assert failures == [] and [s.reconnects for s in students] == [0] * STUDENTS
        assert [s.cookies["RLSERVER"] for s in students] == homes
        t = lap("affinity", t)
        report(
            f"cookie affinity: a new browser gets RLSERVER=r…; 10 requests with RLSERVER=r1 all reached r1 (r0 +0,"
            f" r1 +10 in HAProxy's counters); {STUDENTS} students spread {homes.count('r0')}/{homes.count('r1')}"
            f" over r0/r1 and stayed there for 2 changes each ({timings['affinity']:.1f} s)"
        )

        # 4. the WebSocket upgrade
        for replica in ("r0", "r1"):
            status_line = websocket_upgrade(port, f"RLSERVER={replica}")
            assert status_line.startswith("HTTP/1.1 101"), status_line
        report(f"WebSocket upgrade through HAProxy to r0 and r1: {status_line!r}")

        # 5. a class's data in PostgreSQL, shared by the replicas
        made = app_python(
            APP[0],
            "import json; from lab.classroom import admission, classes, versions\n"
            "from lab.classroom.db import make_engine\n"
            "e = make_engine(); c = classes.create_class(e, 'Containers'); s = admission.join_class(e, c.code, 'Ada')\n"
            "v = versions.stored_class_version(e, c.code)\n"
            "print(json.dumps({'code': c.code, 'teacher': c.teacher_token, 'student': s.student_token,"
            " 'key': v.follow_key, 'version': v.version, 'url': e.url.render_as_string(hide_password=True)}))",
        )
        assert made["url"].startswith("postgresql+psycopg://lab:***@residual-lab-postgres-pod-0:5432/")
        assert psql(f"SELECT name, student_count FROM classes WHERE code = '{made['code']}'") == "Containers|1"
        assert psql("SELECT s.name FROM students s JOIN classes c ON c.id = s.class_id "
                    f"WHERE c.code = '{made['code']}'") == "Ada"  # fmt: skip
        page = Student(url, "class", query=f"code={made['code']}&student={made['student']}", timeout=60)
        page.cookies["RLSERVER"] = "r1"

        async def student_page():
            run = await page.load()
            await page.close_quietly()
            return run

        run = loop.run(student_page())
        assert run.exceptions == [] and page.cookies["RLSERVER"] == "r1"
        version_url = f"{url}/_class_version?code={made['code']}&key={made['key']}"
        made_version = {"version": made["version"], "layout": "none", "live": "none|0|0|0"}  # round 0, nobody removed
        status, _, body = http_get(version_url, cookie="RLSERVER=r1")
        assert status == 200 and json.loads(body) == {**made_version, "open": True}, body
        app_python(
            APP[0],
            "import json; from lab.classroom import classes; from lab.classroom.db import make_engine\n"
            f"classes.end_class(make_engine(), {made['code']!r}, {made['teacher']!r}); print('{{}}')",
        )
        wait_for(
            "replica r1 sees the class ended on r0",
            lambda: json.loads(http_get(version_url, cookie="RLSERVER=r1")[2]) == {
                **made_version, "version": made["version"] + 1, "open": False},
            10,
        )  # fmt: skip
        t = lap("class data", t)
        report(
            f"class {made['code']} and student Ada made by r0 are rows in PostgreSQL ({made['url']}); the student's"
            f" page on r1 ran without an error; r1's /_class_version read version {made['version']}, then"
            f" {made['version'] + 1} (ended) after the teacher's action on r0"
        )

        # 5b. the database container paused (podman pause: the cgroup freezer, as SIGSTOP): the replicas stay alive,
        # the version route and readiness say "not answering" in time, the lab keeps serving, all comes back after
        made_secret = app_python(APP[0], "import os, json; print(json.dumps(os.environ['RESIDUAL_LAB_SECRET']))")
        assert made_secret == (secrets_dir / "lab-secret").read_text().strip()  # the generated, shared secret
        podman("pause", POSTGRES)
        try:
            paused_at = time.monotonic()
            version_url = f"{url}/_class_version?code={made['code']}&key={made['key']}"
            time.sleep(1.2)  # the version each replica keeps for a second is stale
            status, _, _ = http_get(version_url, cookie="RLSERVER=r1", timeout=10)  # r1 drew the class page
            version_s = time.monotonic() - paused_at - 1.2
            ready = {r: http_get(f"{url}/_ready", cookie=f"RLSERVER={r}", timeout=10) for r in ("r0", "r1")}
            index_at = time.monotonic()
            index_status, _, _ = http_get(f"{url}/", cookie="RLSERVER=r0")
            index_s = time.monotonic() - index_at
            health = http_get(f"{url}/_stcore/health", cookie="RLSERVER=r1")[2]
        finally:
            podman("unpause", POSTGRES)
        assert status == 503 and version_s < 3.0, (status, version_s)
        assert all(r[0] == 503 and json.loads(r[2]) == {"database": "not answering"} for r in ready.values()), ready
        assert (index_status, health) == (200, b"ok") and index_s < 2.0
        wait_for("readiness ok again", lambda: json.loads(http_get(f"{url}/_ready")[2]) == {"database": "ok"}, 30)
        t = lap("database paused", t)
        report(
            f"podman pause of PostgreSQL: /_class_version 503 after {version_s:.2f} s, /_ready 'not answering' on r0"
            f" and r1, index.html in {index_s * 1000:.0f} ms, /_stcore/health 'ok'; 'ok' again after unpause;"
            " both replicas hold the generated RESIDUAL_LAB_SECRET"
        )

        # 6. kill -9 of replica 0
        pid = int(podman("inspect", APP[0], "--format", "{{.State.Pid}}").stdout)
        restarts = int(podman("inspect", APP[0], "--format", "{{.RestartCount}}").stdout)
        on_r0 = [s for s in students if s.cookies["RLSERVER"] == "r0"]
        on_r1 = [s for s in students if s.cookies["RLSERVER"] == "r1"]
        os.kill(pid, signal.SIGKILL)
        killed_at = time.monotonic()
        failures = loop.run(change_controls(students, CHANGES))
        assert failures == []
        assert all(s.reconnects >= 1 and s.cookies["RLSERVER"] == "r1" for s in on_r0)  # redispatched to r1
        assert all(s.reconnects == 0 and s.cookies["RLSERVER"] == "r1" for s in on_r1)  # unaffected
        assert [e for s in students for e in s.exceptions] == []
        for s in on_r0:  # the page state came back from the URL on r1: lab_p is the value the student set
            value = next(w.value for w in s.widgets.values() if w.key == "bl_p")
            assert (f"lab_p={value:.2f}" in s.query) if value != 0.5 else ("lab_p" not in s.query), (value, s.query)
        moved = max(s.reconnected_at for s in on_r0) - killed_at

        def restarted():
            state = json.loads(podman("inspect", APP[0]).stdout)[0]
            return state["State"]["Running"] and state["State"]["Pid"] != pid and state["RestartCount"] > restarts

        wait_for("podman restarted the killed replica", restarted, 60)
        restart_s = time.monotonic() - killed_at
        wait_for("HAProxy marked r0 up again", lambda: haproxy_stats()["r0"]["status"] == "UP", 60)
        up_s = time.monotonic() - killed_at
        stats = haproxy_stats()
        assert int(stats["r0"]["chkdown"]) >= 1  # it was marked down in between
        status, _, _ = http_get(f"{url}/_stcore/health", cookie="RLSERVER=r0")
        assert status == 200
        t = lap("kill -9", t)
        report(
            f"kill -9 of r0 (pid {pid}): its {len(on_r0)} students reconnected to r1 within {moved:.1f} s, their"
            f" pages back from their URLs; r1's {len(on_r1)} students never reconnected; all {STUDENTS} finished"
            f" {CHANGES} more changes without an error; podman restarted r0 after {restart_s:.1f} s, HAProxy saw it"
            f" down ({stats['r0']['chkdown']}x) and UP again after {up_s:.1f} s"
        )

        # 7. SIGTERM stops a replica cleanly: Streamlit is the container's main process (the entry point execs it)
        t = time.monotonic()
        podman("stop", "--time", "25", APP[1], timeout=60)
        state = json.loads(podman("inspect", APP[1]).stdout)[0]["State"]
        t = lap("SIGTERM", t)
        assert state["ExitCode"] == 0 and timings["SIGTERM"] < 25, (state["ExitCode"], timings["SIGTERM"])
        report(f"podman stop (SIGTERM) of r1: exited with status 0 after {timings['SIGTERM']:.1f} s")
    except BaseException:
        dump_logs()
        raise
    finally:
        loop.close(students)
        t = time.monotonic()
        tear_down(deployment.play_file)
        left = left_behind(in_store)
        timings["tear down"] = time.monotonic() - t
        report(f"torn down in {timings['tear down']:.1f} s (pods, containers, secret, volume, network); left: {left}")
        lock.close()
    report(
        f"total {time.monotonic() - started:.0f} s: "
        + ", ".join(f"{step} {seconds:.1f} s" for step, seconds in timings.items())
    )
    assert left == {}, f"left behind: {left}"
