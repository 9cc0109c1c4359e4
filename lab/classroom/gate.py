"""Every wait for the class database is bounded: database work runs in a small pool of its own threads, and the
caller waits at most a few seconds for it (docs/security.md, "Faults").

Why: a database that stops answering without closing its connections (a network cut, a frozen server) leaves a
query waiting for ever; PostgreSQL's own timeouts cannot fire on a server that is stopped. Run on the server's
shared threads, such waits took every worker that also serves the lab pages and the static files. Here they take
at most ``RESIDUAL_LAB_DB_WORKERS`` threads of this pool; a caller gets :class:`NotAnswering` after
``RESIDUAL_LAB_DB_TIMEOUT_S`` seconds (default 3), and once a call is stuck, later callers wait
``STUCK_WAIT_S`` only (the database is known not to answer). A call that timed out before it started never
runs; one that had started finishes when the database answers again (committed or rolled back, once), and
its caller can ask the :class:`NotAnswering`'s ``pending`` future what became of it. Nothing here imports
Streamlit."""

from __future__ import annotations

import os
import threading
from collections.abc import Callable
from concurrent.futures import Future, ThreadPoolExecutor
from concurrent.futures import TimeoutError as FutureTimeout
from typing import TypeVar

TIMEOUT_ENV = "RESIDUAL_LAB_DB_TIMEOUT_S"
WORKERS_ENV = "RESIDUAL_LAB_DB_WORKERS"
DEFAULT_TIMEOUT_S = 3.0
DEFAULT_WORKERS = 8
STUCK_WAIT_S = 0.5
MAX_QUEUED = 1000  # calls waiting for a thread of the pool at once; beyond: refused at once

Result = TypeVar("Result")


def _number(name: str, default: float, low: float, high: float) -> float:
    try:
        value = float(os.environ.get(name, "") or default)
    except ValueError:
        return default
    return min(max(value, low), high)


def timeout_s() -> float:
    """How long a page waits for the class database (``RESIDUAL_LAB_DB_TIMEOUT_S``, 0.5 to 30 s, default 3)."""
    return _number(TIMEOUT_ENV, DEFAULT_TIMEOUT_S, 0.5, 30.0)


class NotAnswering(OSError):
    """The class database did not answer in time. ``pending``: the call, still running (it completes or fails
    when the database answers); None when it never started (nothing was done)."""

    def __init__(self, pending: Future | None = None):
        super().__init__("the class database is not answering")
        self.pending = pending


class Gate:
    """A bounded pool for database calls with a bounded wait for each."""

    def __init__(self, workers: int | None = None):
        workers = workers or int(_number(WORKERS_ENV, DEFAULT_WORKERS, 1, 64))
        self.workers = workers
        self._pool = ThreadPoolExecutor(max_workers=workers, thread_name_prefix="class-db")
        self._slots = threading.BoundedSemaphore(MAX_QUEUED)
        self._lock = threading.Lock()
        self._stuck = 0  # calls that outlived their caller's wait and still run

    @property
    def stuck(self) -> int:
        return self._stuck

    def submit(self, call: Callable[[], Result]) -> Future:
        """Queue ``call`` on the pool (NotAnswering at once when MAX_QUEUED calls wait already)."""
        if not self._slots.acquire(blocking=False):
            raise NotAnswering()
        try:
            future = self._pool.submit(call)
        except RuntimeError:  # the pool is shutting down
            self._slots.release()
            raise NotAnswering() from None
        future.add_done_callback(lambda _f: self._slots.release())
        return future

    def wait(self, future: Future, timeout: float | None = None) -> Result:
        """The result of a submitted call, waiting at most ``timeout`` (default: timeout_s(), or STUCK_WAIT_S while a
        call is stuck); NotAnswering after that, with the call cancelled if it had not started."""
        if timeout is None:
            timeout = min(timeout_s(), STUCK_WAIT_S) if self._stuck else timeout_s()
        try:
            return future.result(timeout)
        except FutureTimeout:
            started = not future.cancel()
            if started:
                self.abandon(future)
            raise NotAnswering(future if started else None) from None

    def abandon(self, future: Future) -> None:
        """A caller stopped waiting for ``future`` (an async route's own timeout): count it as stuck while it runs."""
        if future.cancel():
            return
        with self._lock:
            self._stuck += 1
        future.add_done_callback(self._unstick)

    def _unstick(self, _future: Future) -> None:
        with self._lock:
            self._stuck -= 1

    def call(self, call: Callable[[], Result], timeout: float | None = None) -> Result:
        """Run ``call`` on the pool and wait for it (see wait)."""
        return self.wait(self.submit(call), timeout)


_gate: Gate | None = None
_gate_lock = threading.Lock()


def gate() -> Gate:
    """This process's gate (made on first use)."""
    global _gate
    if _gate is None:
        with _gate_lock:
            if _gate is None:
                _gate = Gate()
    return _gate


def bounded(call: Callable[[], Result], timeout: float | None = None) -> Result:
    """``call()`` through this process's gate."""
    return gate().call(call, timeout)
