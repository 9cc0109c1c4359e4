"""The join link students open: which address it uses, and this machine's network addresses to offer.

The address for students comes from, in order: ``RESIDUAL_LAB_PUBLIC_URL``; the address the teacher typed on the
dashboard (kept with the class, so the projector shows the same link); the address this browser opened, unless
it is a loopback one (``localhost``, ``127.0.0.1``, ``::1``), which a phone cannot reach. With none of them the
pages show no join link at all (and no QR code), and the dashboard says why and offers this machine's
network addresses, as Streamlit's "Network URL" does.
"""

from __future__ import annotations

import functools
import ipaddress
import os
import socket
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit, urlunsplit

import streamlit as st

from lab.classroom import store

PUBLIC_URL_ENV = "RESIDUAL_LAB_PUBLIC_URL"
CLASS_PATH = "class"
MAX_ADDRESSES = 4  # network addresses offered


@dataclass(frozen=True)
class JoinLink:
    url: str | None  # None: no address students can open is known
    source: str  # "environment", "dashboard", "browser" or "loopback"
    problem: str = ""  # RESIDUAL_LAB_PUBLIC_URL set but unusable: why


def is_loopback(host: str | None) -> bool:
    host = (host or "").strip("[]").lower()
    if not host or host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _class_link(base: str, code: str, app_root: bool, join_key: str = "") -> str:
    """``<app>/class?code=C&join=K`` (K: the class's join key, store.join_key, when given). ``app_root``: ``base``
    is the app's address (its path is the app's prefix), else it
    is a page's address (its last path segment is the page, the rest the prefix)."""
    parts = urlsplit(base)
    path = parts.path.rstrip("/")
    if not app_root:
        path = path.rsplit("/", 1)[0] if path.count("/") > 1 else ""
    return urlunsplit(
        (
            parts.scheme,
            parts.netloc,
            f"{path}/{CLASS_PATH}",
            urlencode({"code": code, **({"join": join_key} if join_key else {})}),
            "",
        )
    )


def join_link(code: str, typed: str = "", join_key: str = "") -> JoinLink:
    """The join link of class ``code``: ``typed`` is the address kept with the class ("" when none); ``join_key``
    the class's join key (a join through the link skips the wrong-code slowing)."""
    problem = ""
    public = os.environ.get(PUBLIC_URL_ENV, "").strip()
    if public:
        try:
            return JoinLink(_class_link(store.check_join_address(public), code, True, join_key), "environment")
        except store.ClassroomError as exc:
            problem = f"{PUBLIC_URL_ENV} is not used: {exc}"
    if typed:
        return JoinLink(_class_link(typed, code, True, join_key), "dashboard", problem)
    here = st.context.url or ""
    parts = urlsplit(here)
    if here and not is_loopback(parts.hostname):
        try:
            store.check_join_address(urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")))
        except store.ClassroomError:
            pass  # an address no QR code could hold: as if unknown
        else:
            return JoinLink(_class_link(here, code, False, join_key), "browser", problem)
    return JoinLink(None, "loopback", problem)


@functools.lru_cache(maxsize=1)
def _network_ips() -> tuple[str, ...]:
    """This machine's IPv4 addresses other than loopback ones (looked up once per process)."""
    found: list[str] = []
    with socket.socket(socket.AF_INET, socket.SOCK_DGRAM) as probe:
        try:
            probe.connect(("10.255.255.255", 1))  # no packet is sent: this picks the interface of the default route
            found.append(probe.getsockname()[0])
        except OSError:
            pass
    try:
        infos = socket.getaddrinfo(socket.gethostname(), None, socket.AF_INET)
    except OSError:
        infos = []
    found += [info[4][0] for info in infos]
    kept: list[str] = []
    for ip in found:
        if ip not in kept and not ipaddress.ip_address(ip).is_loopback and not ipaddress.ip_address(ip).is_link_local:
            kept.append(ip)
    return tuple(kept[:MAX_ADDRESSES])


def network_addresses() -> list[str]:
    """App addresses on this machine's network interfaces (the port and scheme this browser used)."""
    parts = urlsplit(st.context.url or "http://localhost:8501/")
    port = f":{parts.port}" if parts.port else ""
    return [f"{parts.scheme or 'http'}://{ip}{port}" for ip in _network_ips()]
