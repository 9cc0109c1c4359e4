"""The classroom database for the pages: ``st.connection("classroom", type="sql")``, prepared once.

Which database: ``RESIDUAL_LAB_DATABASE_URL`` if set; else ``[connections.classroom] url`` in
.streamlit/secrets.toml; else the SQLite file ``classroom.db`` in the data folder (``data/``, or the folder in
``RESIDUAL_LAB_DATA``)."""

from __future__ import annotations

import functools
import os
import threading
import time

import streamlit as st
from sqlalchemy.exc import SQLAlchemyError
from streamlit.runtime.scriptrunner import get_script_run_ctx

from lab.classroom import answers, classes, keys, versions
from lab.classroom.db import DATA_ENV, URL_ENV, database_url, engine_options, prepare
from lab.classroom.gate import bounded

_secrets_checked: list[str] = []


def _secrets_url() -> str:
    """The class database's URL in .streamlit/secrets.toml ("" for none): read once per process (without a secrets
    file, Streamlit looks for one again on every read, a few system calls on every run of every page)."""
    if not _secrets_checked:
        try:
            found = str(st.secrets.get("connections", {}).get("classroom", {}).get("url") or "")
        except Exception:  # no secrets file at all
            found = ""
        _secrets_checked.append(found)
    return _secrets_checked[0]


_connections: dict[tuple, object] = {}


def _connection(url: str, from_secrets: bool):
    """``st.connection("classroom")`` for ``url`` (named in secrets.toml, or passed), with bounded waits
    (engine_options), made once per process and setting: st.connection wraps its factory in st.cache_resource again
    on every call, which reads the factory's source code each time (on every run of every page)."""
    options = engine_options(url)
    key = (url, from_secrets, repr(options))
    conn = _connections.get(key)
    if conn is None:
        conn = st.connection("classroom", type="sql", **({} if from_secrets else {"url": url}), **options)
        _connections[key] = conn
    return conn


def engine():
    url = os.environ.get(URL_ENV, "").strip()
    from_secrets = not url and bool(_secrets_url())
    if from_secrets:
        url = _secrets_url()
    elif not url:
        url = _default_url(os.environ.get(DATA_ENV, ""))
    global _last_engine
    _last_engine = prepare(_connection(url, from_secrets).engine)
    purge_if_due(_last_engine)
    return _last_engine


@functools.lru_cache(maxsize=8)
def _default_url(_data_folder: str) -> str:
    """The SQLite file's URL for this data folder, the folder made once (not on every run of every page)."""
    return database_url()


def browser_key() -> str:
    """This browser session (what wrong class codes and joins are counted by): the token of Streamlit's XSRF
    cookie, which a browser keeps until it closes and sends on every connection, also after a reload; without
    it (AppTest, XSRF protection off) this Streamlit session. Only a keyed HMAC of it is stored."""
    token = keys.xsrf_token(st.context.cookies.get("_streamlit_xsrf"))
    if token:
        return "xsrf:" + token
    ctx = get_script_run_ctx()
    return "session:" + (ctx.session_id if ctx is not None else "")


def client_address() -> str:
    """The client's address: the peer's, or, when the peer is a proxy named in RESIDUAL_LAB_TRUSTED_PROXIES, the
    address that proxy put into X-Forwarded-For (lab.classroom.keys.client_address).

    Streamlit reports no address (``st.context.ip_address`` is None) for a peer on loopback (127.0.0.1 or ::1, it
    does not say which), and that is exactly where deploy/serve's HAProxy connects from: so a request that came
    over a connection (it has headers) with no address came from loopback (keys.LOOPBACK_PEER). Without a
    connection (AppTest) the address stays unknown ("")."""
    headers = st.context.headers
    peer = st.context.ip_address or (keys.LOOPBACK_PEER if headers else None)
    return keys.client_address(peer, headers.get("X-Forwarded-For"), keys.trusted_proxies())


def client_id() -> str:  # kept for callers of the earlier name: the browser session
    return browser_key()


PURGE_EVERY_S = 3600.0
_purged_at: list[float] = []
_purge_lock = threading.Lock()


def purge_if_due(db) -> None:
    """Delete what is past its keeping time (classes.purge_old) when this process starts and then hourly; a
    failure (the database is down) is tried again on a later run."""
    if _purged_at and time.monotonic() - _purged_at[0] < PURGE_EVERY_S:
        return
    if not _purge_lock.acquire(blocking=False):
        return  # another session is purging
    try:
        bounded(lambda: classes.purge_old(db))
        _purged_at[:] = [time.monotonic()]
    except (SQLAlchemyError, OSError):  # OSError: the gate's NotAnswering
        pass
    finally:
        _purge_lock.release()


# One value per class for the whole process, kept for half a second: every student's page of a class asks for it
# (through lab.views.live_class.follow's HTTP route, whose watcher also reads it afresh while pages wait, or its timed
# fragment), and it costs a few small queries a second per class whatever the number of students. A plain dict, not
# st.cache_data: the route reads it outside any script run, and it is read far more often than written.
VERSION_TTL_S = 0.5
_MAX_CLASSES_KEPT = 1000
_NOT_KEPT = object()
_last_engine = None  # the engine the pages use, for the route (set by engine(): a page ran before any route call)


class _KeptPerClass:
    """A value per class code, fresh for VERSION_TTL_S after the moment its reading began."""

    def __init__(self):
        self._kept: dict[str, tuple[float, object]] = {}
        self._lock = threading.Lock()

    def fresh(self, code: str):
        """The kept value if it is fresh, else _NOT_KEPT."""
        kept = self._kept.get(code)
        if kept is not None and time.monotonic() - kept[0] < VERSION_TTL_S:
            return kept[1]
        return _NOT_KEPT

    def read(self, code: str, reading):
        """Run reading() and keep what it gives (a failure is not kept: the next caller reads again)."""
        read_at = time.monotonic()
        value = reading()
        with self._lock:
            if len(self._kept) >= _MAX_CLASSES_KEPT:
                self._kept.clear()  # bounded: unknown codes asked for once each do not pile up
            self._kept[code] = (read_at, value)
        return value


_versions = _KeptPerClass()
# The class's current activity, who answered in it and who was removed, also one reading per class kept half a second:
# when the teacher opens an activity every student's page of the class draws it at the same moment, from this
# (answers.newly_opened) instead of one read of its own each (docs/decisions/0002).
_activities = _KeptPerClass()


def cached_class_version(code: str) -> versions.ClassVersion | None | bool:
    """The kept value if it is fresh, else False (the caller reads the database off the event loop)."""
    kept = _versions.fresh(code)
    return False if kept is _NOT_KEPT else kept


def read_class_version(code: str, db) -> versions.ClassVersion | None:
    """Read the class-state version from the database and keep it for VERSION_TTL_S (run it through the gate)."""
    return _versions.read(code, lambda: versions.stored_class_version(db, code))


def class_version(code: str, db=None) -> versions.ClassVersion | None:
    """The class-state version, shared by every student's page of the class for a second (a bounded wait)."""
    kept = cached_class_version(code)
    if kept is not False:
        return kept
    db = db if db is not None else engine()
    return bounded(lambda: read_class_version(code, db))


def class_activity(code: str, db=None) -> answers.ClassActivity | None:
    """The class's shared reading of its current activity (answers.class_activity), kept VERSION_TTL_S (a bounded
    wait)."""
    kept = _activities.fresh(code)
    if kept is not _NOT_KEPT:
        return kept
    db = db if db is not None else engine()
    return bounded(lambda: _activities.read(code, lambda: answers.class_activity(db, code)))


def engine_for_routes():
    """The engine a page of this process opened (None before any page ran here)."""
    return _last_engine
