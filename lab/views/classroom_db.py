"""The classroom database for the pages: ``st.connection("classroom", type="sql")``, prepared once.

Which database: ``RESIDUAL_LAB_DATABASE_URL`` if set; else ``[connections.classroom] url`` in
.streamlit/secrets.toml; else the SQLite file ``classroom.db`` in the data folder (``data/``, or the folder in
``RESIDUAL_LAB_DATA``)."""

from __future__ import annotations

import ipaddress
import os

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
    return prepare(conn.engine)


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


# Defined in a module, not in a page script: a cache decorator in a page script is created again on every run
# of the page (reading and hashing the function's source each time).
@st.cache_data(ttl=1, show_spinner=False, max_entries=1000)
def class_version(code: str):
    """The class-state version, shared by every student's page for a second (one small query a second per
    class, whatever the number of students)."""
    return store.class_version(engine(), code)
