"""The join link students open: which address it uses, and this machine's network addresses to offer.

The address for students comes from, in order: ``RESIDUAL_LAB_PUBLIC_URL``; the address the teacher typed on the
dashboard (kept with the class, so the projector shows the same link); the address this browser opened, unless
it is a loopback one (``localhost``, ``127.0.0.1``, ``::1``), which a phone cannot reach. Every link meant for
students (the join link, the Exercises assignment link) takes its address from here. With none of them the
pages show no link at all (and no QR code), and say why; the dashboard offers this machine's network addresses,
as Streamlit's "Network URL" does, unless the server listens on loopback only (then no address would work, and it
says how to start the app for the room).
"""

from __future__ import annotations

import functools
import ipaddress
import os
import socket
from dataclasses import dataclass
from urllib.parse import urlencode, urlsplit, urlunsplit

import streamlit as st

from lab.classroom import admission, refusals
from lab.classroom.keys import TRUSTED_PROXIES_ENV
from lab.core.errors import said, said_of
from lab.core.formatting import markdown_escape
from lab.views.ui.language import texts

PUBLIC_URL_ENV = "RESIDUAL_LAB_PUBLIC_URL"
CLASS_PATH = "class"
MAX_ADDRESSES = 4  # network addresses offered


@dataclass(frozen=True)
class StudentAddress:
    root: str | None  # the app's address a phone can open, without a trailing "/" (None: none is known)
    source: str  # "environment", "dashboard", "browser" or "loopback"
    problem: str = ""  # RESIDUAL_LAB_PUBLIC_URL set but unusable: why


@dataclass(frozen=True)
class JoinLink:
    url: str | None  # None: no address students can open is known
    source: str  # "environment", "dashboard", "browser" or "loopback"
    problem: str = ""  # RESIDUAL_LAB_PUBLIC_URL set but unusable: why
    typed: str = ""  # what a student types without the QR code: the Class page's address (no key, no query)


def is_loopback(host: str | None) -> bool:
    host = (host or "").strip("[]").lower()
    if not host or host == "localhost" or host.endswith(".localhost"):
        return True
    try:
        return ipaddress.ip_address(host).is_loopback
    except ValueError:
        return False


def _root(url: str, app_root: bool) -> str:
    """The app's address from ``url``: ``app_root``: ``url`` is the app's address (its path is the app's prefix),
    else a page's address (its last path segment is the page, the rest the prefix). No query, no trailing "/"."""
    parts = urlsplit(url)
    path = parts.path.rstrip("/")
    if not app_root:
        path = path.rsplit("/", 1)[0] if path.count("/") > 1 else ""
    return urlunsplit((parts.scheme, parts.netloc, path, "", ""))


def student_address(typed: str = "") -> StudentAddress:
    """The app's address for every link a student is given (the class's join link, an assignment link):
    ``RESIDUAL_LAB_PUBLIC_URL``, else ``typed`` (the address the teacher gave, "" when none), else this browser's
    address unless it is a loopback one; else none."""
    problem = ""
    public = os.environ.get(PUBLIC_URL_ENV, "").strip()
    if public:
        try:
            return StudentAddress(_root(admission.check_join_address(public), True), "environment")
        except refusals.ClassroomError as exc:
            problem = said("{variable} is not used: {problem}", variable=PUBLIC_URL_ENV, problem=said_of(exc))
    if typed:
        return StudentAddress(_root(typed, True), "dashboard", problem)
    here = st.context.url or ""
    parts = urlsplit(here)
    if here and not is_loopback(parts.hostname):
        try:
            admission.check_join_address(urlunsplit((parts.scheme, parts.netloc, parts.path, "", "")))
        except refusals.ClassroomError:
            pass  # an address no QR code could hold: as if unknown
        else:
            return StudentAddress(_root(here, False), "browser", problem)
    return StudentAddress(None, "loopback", problem)


def join_link(code: str, typed: str = "", join_key: str = "") -> JoinLink:
    """The join link of class ``code``: ``typed`` is the address kept with the class ("" when none); ``join_key``
    the class's join key (a join through the link skips the wrong-code slowing)."""
    address = student_address(typed)
    if address.root is None:
        return JoinLink(None, address.source, address.problem)
    page = f"{address.root}/{CLASS_PATH}"
    query = urlencode({"code": code, **({"join": join_key} if join_key else {})})
    return JoinLink(f"{page}?{query}", address.source, address.problem, page)


def listens_on_loopback_only() -> bool:
    """This server accepts connections from this computer only (``--server.address 127.0.0.1`` or localhost),
    with no proxy in front of it (``RESIDUAL_LAB_TRUSTED_PROXIES``, as deploy/serve sets for its replicas behind
    HAProxy): no other machine can connect at any address."""
    if os.environ.get(TRUSTED_PROXIES_ENV, "").strip():
        return False
    listening = str(st.get_option("server.address") or "").strip()
    return bool(listening) and is_loopback(listening)


START_FOR_THE_ROOM = "./run --server.address 0.0.0.0"


def no_address_warning(what: str) -> None:
    """Why there is no ``what`` (a link's name marked for the catalogs, e.g. "join link") and no QR code: the page
    was opened as localhost and no address for students is set; and, when this server listens on loopback only, that
    no address would work until it is started for the room. The same words on every page that gives students a
    link."""
    _ = texts()
    text = _(
        "**No {link} yet: this page was opened as localhost**, an address only this computer knows, so a link or QR "
        "code made from it would not open on a phone.", link=_(what),
    ) + " "
    if listens_on_loopback_only():
        text += _(
            "**This app also listens on this computer only** (server address {address}): no phone can connect to it "
            "at any address. Stop it and start it for the room with `{command}` (or set {variable} to the address of "
            "a proxy in front of it).", address=markdown_escape(str(st.get_option("server.address"))),
            command=START_FOR_THE_ROOM, variable=PUBLIC_URL_ENV,
        )
    else:
        text += _(
            "Give the address students can reach (this machine's network address, below), or set {variable} when "
            "starting the app.", variable=PUBLIC_URL_ENV,
        )
    st.warning(text)


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
    """App addresses on this machine's network interfaces (the port and scheme this browser used); none when
    this server listens on loopback only (a phone could not connect to any of them)."""
    if listens_on_loopback_only():
        return []
    parts = urlsplit(st.context.url or "http://localhost:8501/")
    port = f":{parts.port}" if parts.port else ""
    return [f"{parts.scheme or 'http'}://{ip}{port}" for ip in _network_ips()]
