"""The classroom database for the pages: ``st.connection("classroom", type="sql")``, prepared once.

Which database: ``RESIDUAL_LAB_DATABASE_URL`` if set; else ``[connections.classroom] url`` in
.streamlit/secrets.toml; else the SQLite file ``classroom.db`` in the data folder (``data/``, or the folder in
``RESIDUAL_LAB_DATA``)."""

from __future__ import annotations

import ipaddress
import os
import threading
import time

import streamlit as st

from lab.classroom import store
from lab.classroom.db import URL_ENV, database_url, prepare


def _secrets_url() -> bool:
    try:
        return bool(st.secrets.get("connections", {}).get("classroom", {}).get("url"))
    except Exception:  # no secrets file at all
        return False


def engine():
    url = os.environ.get(URL_ENV, "").strip()
    if url:
        conn = st.connection("classroom", type="sql", url=url)
    elif _secrets_url():
        conn = st.connection("classroom", type="sql")
    else:
        conn = st.connection("classroom", type="sql", url=database_url())
    global _last_engine
    _last_engine = prepare(conn.engine)
    return _last_engine


def client_id() -> str:
    """The device asking (for slowing down wrong class codes): its address; behind a proxy on this machine
    (HAProxy), the first address in X-Forwarded-For."""
    address = st.context.ip_address or ""
    try:
        local = not address or ipaddress.ip_address(address).is_loopback
    except ValueError:
        local = True
    if local:
        forwarded = (st.context.headers.get("X-Forwarded-For") or "").split(",")[0].strip()
        if forwarded:
            return forwarded
    return address or "local"


# One value per class for the whole process, kept for a second: every student's page of a class asks for it
# every few seconds (through lab.views.follow's HTTP route, or its timed fragment), and it costs one small query
# a second per class whatever the number of students. A plain dict, not st.cache_data: the route reads it outside
# any script run, and it is read far more often than written.
VERSION_TTL_S = 1.0
_MAX_CLASSES_KEPT = 1000
_versions: dict[str, tuple[float, store.ClassVersion | None]] = {}
_versions_lock = threading.Lock()
_last_engine = None  # the engine the pages use, for the route (set by engine(): a page ran before any route call)


def cached_class_version(code: str) -> store.ClassVersion | None | bool:
    """The kept value if it is fresh, else False (the caller reads the database off the event loop)."""
    kept = _versions.get(code)
    if kept is not None and time.monotonic() - kept[0] < VERSION_TTL_S:
        return kept[1]
    return False


def class_version(code: str, db=None) -> store.ClassVersion | None:
    """The class-state version, shared by every student's page of the class for a second."""
    kept = cached_class_version(code)
    if kept is not False:
        return kept
    read_at = time.monotonic()
    value = store.class_version(db if db is not None else engine(), code)
    with _versions_lock:
        if len(_versions) >= _MAX_CLASSES_KEPT:
            _versions.clear()  # bounded: unknown codes asked for once each do not pile up
        _versions[code] = (read_at, value)
    return value


def engine_for_routes():
    """The engine a page of this process opened (None before any page ran here)."""
    return _last_engine
