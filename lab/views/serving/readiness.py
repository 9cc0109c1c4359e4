"""``GET /_ready``: the readiness check (Kubernetes' readinessProbe, podman's probe, HAProxy could use it too):
200 ``{"database": "ok"}`` when the class database answers ``SELECT 1`` within READY_WAIT_S, else 503 with
``"not answering"`` (no answer in time: a frozen server, a network cut) or ``"unreachable"`` (refused, failed).
Liveness stays Streamlit's ``/_stcore/health`` ("ok" while the process serves pages): a replica whose database is
away is alive, its lab pages work, it only should not get new class traffic. The probe runs on the class
database's bounded pool (lab.classroom.gate), never on the threads that serve pages, and is kept for a second."""

from __future__ import annotations

import asyncio
import threading
import time

from lab.classroom.gate import gate

ROUTE_PATH = "/_ready"
READY_WAIT_S = 2.0
KEEP_S = 1.0

_engine = None
_engine_lock = threading.Lock()
_last: list = []  # [(monotonic time, status, body)]


def _probe_engine():
    """An engine of its own for the probe (one connection), on the pages' database URL: it works before any page
    ran in this process."""
    global _engine
    with _engine_lock:
        if _engine is None:
            from sqlalchemy import create_engine

            from lab.classroom.db import database_url, engine_options

            url = database_url()
            _engine = create_engine(url, pool_size=1, max_overflow=0, **engine_options(url))
    return _engine


def _select_one() -> None:
    with _probe_engine().connect() as conn:
        conn.exec_driver_sql("SELECT 1")


async def database_state() -> tuple[int, str]:
    """(HTTP status, the database's state in words)."""
    if _last and time.monotonic() - _last[0][0] < KEEP_S:
        return _last[0][1], _last[0][2]
    try:
        future = gate().submit(_select_one)
        await asyncio.wait_for(asyncio.wrap_future(future), READY_WAIT_S)
        status, state = 200, "ok"
    except TimeoutError:
        gate().abandon(future)
        status, state = 503, "not answering"
    except Exception:  # noqa: BLE001 - any failure of the probe is a database that cannot be used; no details
        status, state = 503, "unreachable"
    _last[:] = [(time.monotonic(), status, state)]
    return status, state


def routes() -> list:
    from starlette.responses import JSONResponse
    from starlette.routing import Route

    async def ready(_request):
        status, state = await database_state()
        return JSONResponse({"database": state}, status_code=status, headers={"Cache-Control": "no-store"})

    return [Route(ROUTE_PATH, ready, methods=["GET"])]
