"""Bounded waits for the class database (lab.classroom.gate, lab.classroom.db.engine_options): a caller waits at
most the configured time, a call that never started never runs, one that started completes once and says how,
and the pool's threads are the only ones a stuck database can hold."""

from __future__ import annotations

import concurrent.futures
import threading
import time

import pytest

from lab.classroom import gate as gate_module
from lab.classroom.db import engine_options
from lab.classroom.gate import Gate, NotAnswering


def test_a_stuck_call_returns_after_the_timeout_and_completes_once_later(monkeypatch):
    monkeypatch.setenv(gate_module.TIMEOUT_ENV, "0.6")
    g = Gate(workers=1)
    release, ran = threading.Event(), []

    def stuck():
        release.wait(10)
        ran.append("stuck")
        return "saved"

    started = time.monotonic()
    with pytest.raises(NotAnswering) as info:
        g.call(stuck)
    waited = time.monotonic() - started
    assert 0.55 <= waited < 2.0  # the configured 0.6 s, not for ever
    pending = info.value.pending
    assert pending is not None and not pending.done() and g.stuck == 1
    # the pool's only thread is held: a second call queues, and is refused after the short wait, never run
    started = time.monotonic()
    with pytest.raises(NotAnswering) as second:
        g.call(lambda: ran.append("second"))
    assert second.value.pending is None and time.monotonic() - started < gate_module.STUCK_WAIT_S + 0.5
    release.set()
    assert pending.result(5) == "saved"
    time.sleep(0.2)
    assert ran == ["stuck"] and g.stuck == 0  # the first ran once, the second never
    assert g.call(lambda: 41 + 1) == 42  # and the gate serves again at full wait


def test_a_refusal_and_a_failure_reach_the_caller_unchanged():
    g = Gate(workers=2)
    with pytest.raises(ZeroDivisionError):
        g.call(lambda: 1 / 0)
    assert g.stuck == 0


def test_the_timeout_is_configurable_and_bounded(monkeypatch):
    monkeypatch.setenv(gate_module.TIMEOUT_ENV, "7")
    assert gate_module.timeout_s() == 7.0
    for text, expected in (("0", 0.5), ("1000", 30.0), ("soon", 3.0)):
        monkeypatch.setenv(gate_module.TIMEOUT_ENV, text)
        assert gate_module.timeout_s() == expected
    monkeypatch.setenv(gate_module.TIMEOUT_ENV, "2.5")
    options = engine_options("postgresql+psycopg://lab@/db?host=/tmp")
    assert options["pool_timeout"] == 2.5
    assert options["connect_args"] == {
        "connect_timeout": 2,  # libpq takes whole seconds
        "options": "-c statement_timeout=2500 -c lock_timeout=2500",
    }
    assert engine_options("sqlite:///x.db") == {"pool_timeout": 2.5}  # SQLite: its busy timeout (db.BUSY_TIMEOUT_MS)


def test_uvicorn_started_as_the_launchers_start_it_passes_the_peer_address_through_and_the_app_decides(monkeypatch):
    """./run, deploy/serve and the image set FORWARDED_ALLOW_IPS empty (uvicorn's own setting, read when its
    configuration is made): uvicorn then believes no proxy, and the peer address reaches the app as it is."""
    import asyncio

    import uvicorn

    from lab.classroom import keys

    seen = []

    async def inner(scope, receive, send):
        seen.append(scope["client"][0])

    scope = {"type": "http", "client": ("127.0.0.1", 5000), "headers": [(b"x-forwarded-for", b"6.6.6.6")]}
    for allowed, expected in ((None, "6.6.6.6"), ("", "127.0.0.1")):  # uvicorn's default, then the launchers'
        if allowed is None:
            monkeypatch.delenv("FORWARDED_ALLOW_IPS", raising=False)
        else:
            monkeypatch.setenv("FORWARDED_ALLOW_IPS", allowed)
        config = uvicorn.Config(inner, proxy_headers=True)
        config.load()
        seen.clear()
        with concurrent.futures.ThreadPoolExecutor(max_workers=1) as pool:  # no asyncio.run() under Playwright's
            pool.submit(asyncio.run, config.loaded_app(dict(scope), None, None)).result()
        assert seen == [expected]
    # and the app believes the header from loopback only when RESIDUAL_LAB_TRUSTED_PROXIES lists it
    assert keys.client_address("127.0.0.1", "6.6.6.6", keys.trusted_proxies("")) == "127.0.0.1"
    assert keys.client_address("127.0.0.1", "6.6.6.6", keys.trusted_proxies("127.0.0.1")) == "6.6.6.6"


def test_every_launcher_sets_uvicorns_proxy_list_empty():
    from pathlib import Path

    root = Path(__file__).resolve().parent.parent
    assert 'export FORWARDED_ALLOW_IPS=""' in (root / "run").read_text()
    assert '"FORWARDED_ALLOW_IPS": ""' in (root / "deploy" / "serve.py").read_text()
    assert 'os.environ["FORWARDED_ALLOW_IPS"] = ""' in (root / "deploy" / "container" / "start.py").read_text()
    assert '"FORWARDED_ALLOW_IPS": ""' in (root / "tests" / "browserlib.py").read_text()
