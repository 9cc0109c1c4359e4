"""Smoke run of deploy/serve: 2 replicas behind HAProxy, 20 simulated students (tests/loadclient.py, the
load bench's client), one replica killed with SIGKILL in the middle of the run.

Asserts: every student's session completes (its runs finish, reconnecting through HAProxy to the live
replica when its own died), the students of the killed replica did reconnect and kept their page state
(the values they set come back from the URL), no exception reached a page, serve started the replica
again and HAProxy marked it down and then up again. No timing assertions (figures live in
bench/bench_load.py and the README).

Needs Debian's haproxy: skipped when it is missing, except in CI (CI=true), where that is a failure.
"""

from __future__ import annotations

import asyncio
import concurrent.futures
import json
import os
import random
import shutil
import signal
import time
from pathlib import Path

import pytest

from browserlib import haproxy_stats, start_serve, stop_serve
from loadclient import PAGES, Student

STUDENTS = 20
CHANGES = 8

if shutil.which("haproxy") is None and shutil.which("haproxy", path="/usr/sbin:/sbin") is None:
    if os.environ.get("CI") == "true":
        pytest.fail("haproxy is not installed (Debian: apt-get install -y haproxy)", pytrace=False)
    pytest.skip("haproxy is not installed", allow_module_level=True)


@pytest.fixture
def served(tmp_path):
    proc, url = start_serve(tmp_path, log=tmp_path / "serve.log")
    try:
        yield url, tmp_path, proc
    finally:
        stop_serve(proc)


async def drive(url: str, run_dir: Path) -> tuple[list[Student], dict[int, str], str, list[str]]:
    page = PAGES["binomial-lab"][0]
    students = [
        Student(url, page, widget_prefixes=("bl_p",), timeout=90, reconnect_for=90, rng=random.Random(i))
        for i in range(STUDENTS)
    ]
    failures: list[str] = []
    for s in students:  # one after another: the students spread over both replicas
        await s.load()
    homes = {i: s.cookies.get("RLSERVER", "") for i, s in enumerate(students)}
    victim = "r1"
    replicas = json.loads((run_dir / "replicas.json").read_text())
    killed = asyncio.Event()

    async def student_loop(s: Student):
        for n in range(CHANGES):
            try:
                await s.change_widget()
            except Exception as exc:  # noqa: BLE001 - every failure is reported by the assertion below
                failures.append(f"student {students.index(s)} change {n}: {exc!r}")
                return
            if n == CHANGES // 2 - 1:
                await killed.wait()
            await asyncio.sleep(0.3)

    async def killer():
        await asyncio.sleep(2)
        os.kill(replicas[victim]["pid"], signal.SIGKILL)
        killed.set()

    await asyncio.gather(killer(), *(student_loop(s) for s in students))
    await asyncio.gather(*(s.close_quietly() for s in students))
    return students, homes, victim, failures


def test_replicas_survive_a_killed_replica(served):
    url, run_dir, proc = served
    before = json.loads((run_dir / "replicas.json").read_text())
    # its own thread: Playwright's sync API (the browser tests' session fixture) keeps an event loop running in
    # this one while the whole test session lasts, and asyncio.run() refuses to start inside it
    with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:
        students, homes, victim, failures = pool.submit(asyncio.run, drive(url, run_dir)).result()

    assert failures == []
    # the affinity cookie spread the class over both replicas; exactly the killed replica's students reconnected
    assert set(homes.values()) == {"r1", "r2"}
    moved = [s for i, s in enumerate(students) if homes[i] == victim]
    assert [s for s in students if s.reconnects] == moved
    assert all(s.cookies["RLSERVER"] != victim for s in moved)  # HAProxy sent them to the live replica
    assert all(s.runs >= 1 + CHANGES for s in students)  # the first load and every change finished
    assert [e for s in students for e in s.exceptions] == []
    for s in moved:  # on the new replica the page took its state from the URL: lab_p is the value the student set
        value = next(w.value for w in s.widgets.values() if w.key == "bl_p")
        expected = f"lab_p={value:.2f}" in s.query if value != 0.5 else "lab_p" not in s.query
        assert expected, (value, s.query)

    # serve started the replica again, HAProxy saw it down and then up again
    deadline = time.monotonic() + 120
    while True:
        state = json.loads((run_dir / "replicas.json").read_text())
        stats = haproxy_stats(run_dir)
        restarted = state[victim]["pid"] != before[victim]["pid"] and state[victim]["restarts"] == 1
        if restarted and stats[victim]["status"] == "UP":
            break
        assert time.monotonic() < deadline, f"replica not back: {state[victim]}, HAProxy: {stats[victim]['status']}"
        time.sleep(0.5)
    assert int(stats[victim]["chkdown"]) >= 1  # it was marked down in between
    assert proc.poll() is None
