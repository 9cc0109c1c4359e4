"""Keys: who is asking, without storing who they are, and a class's secrets with the keys derived from them.

Who is asking: keyed hashes of browser sessions and addresses, and the address a request really came from.
Nothing here imports Streamlit.

- The server secret comes from ``RESIDUAL_LAB_SECRET`` (deploy/serve gives its replicas one, so their counters in
  a shared database agree); without it each process draws a random one at start. It is never stored, so a copy
  of the database cannot be turned back into addresses (an unsalted SHA-256 of an IPv4 address can: there are
  only 2^32 of them).
- ``RESIDUAL_LAB_TRUSTED_PROXIES``: comma-separated addresses or networks (``127.0.0.1``, ``10.0.0.0/8``) of the
  proxies in front of the app. Only a request arriving from one of them has its ``X-Forwarded-For`` read, and
  then from the right: the last address that is not itself a trusted proxy is the client (what a client writes
  into the header itself sits further left and is ignored). Unset: no proxy is trusted, the peer address counts.
- A class's secrets (the teacher token, a student id, the display key, the join seed) are drawn here; the tokens
  are stored only as their SHA-256 (token_hash), and the students' keys (follow_key, join_key) are derived one-way.
"""

from __future__ import annotations

import binascii
import hashlib
import hmac
import ipaddress
import os
import secrets

SECRET_ENV = "RESIDUAL_LAB_SECRET"
TRUSTED_PROXIES_ENV = "RESIDUAL_LAB_TRUSTED_PROXIES"
_MAX_FORWARDED = 2000  # characters of X-Forwarded-For looked at
# A peer on loopback, which Streamlit reports as no address at all (st.context.ip_address is None for 127.0.0.1
# and ::1 alike): taken as 127.0.0.1, so trusting loopback means listing both (deploy/serve does).
LOOPBACK_PEER = "127.0.0.1"

_process_secret = secrets.token_bytes(32)


def server_secret() -> bytes:
    configured = os.environ.get(SECRET_ENV, "")
    return configured.encode() if configured else _process_secret


def keyed(kind: str, value: str) -> str:
    """HMAC-SHA-256 of ``value`` under the server secret, per ``kind`` (so one value gives unrelated keys)."""
    return hmac.new(server_secret(), f"{kind}\x00{value}".encode("utf-8", "replace"), hashlib.sha256).hexdigest()


def trusted_proxies(spec: str | None = None) -> tuple:
    """The networks of ``spec`` (default: the environment); entries that are no address are ignored."""
    spec = os.environ.get(TRUSTED_PROXIES_ENV, "") if spec is None else spec
    networks = []
    for item in spec.split(","):
        item = item.strip()
        if not item:
            continue
        try:
            networks.append(ipaddress.ip_network(item, strict=False))
        except ValueError:
            continue
    return tuple(networks)


def _address(text: str):
    try:
        return ipaddress.ip_address(text.strip().strip("[]"))
    except ValueError:
        return None


def _trusted(address, networks) -> bool:
    return address is not None and any(address.version == n.version and address in n for n in networks)


def client_address(peer: str | None, forwarded_for: str | None, networks: tuple) -> str:
    """The client's address: the peer's, unless the peer is a trusted proxy; then the rightmost entry of
    ``X-Forwarded-For`` that is not a trusted proxy (an unreadable entry ends the walk: it is no proof)."""
    peer_address = _address(peer or "")
    if peer_address is None:
        return peer or ""
    if not _trusted(peer_address, networks) or not forwarded_for:
        return str(peer_address)
    client = peer_address
    for item in reversed(str(forwarded_for)[:_MAX_FORWARDED].split(",")):
        address = _address(item)
        if address is None:
            break
        client = address
        if not _trusted(address, networks):
            break
    return str(client)


def xsrf_token(cookie: str | None) -> str:
    """The stable part of Streamlit's ``_streamlit_xsrf`` cookie (``2|mask|masked token|time``): the same for a
    browser until it drops the cookie (a browser session), whatever mask each response drew. '' if unreadable."""
    parts = str(cookie or "").split("|")
    if len(parts) != 4 or parts[0] != "2":
        return ""
    try:
        mask, masked = binascii.a2b_hex(parts[1]), binascii.a2b_hex(parts[2])
    except (binascii.Error, ValueError):
        return ""
    if len(mask) != 4 or not 8 <= len(masked) <= 64:
        return ""
    return bytes(b ^ mask[i % 4] for i, b in enumerate(masked)).hex()


# --- a class's secrets and the keys derived from them ------------------------------------------------------------


def new_student_token() -> str:
    """A student id (128 bits): the private part of the student's link; only its token_hash is stored."""
    return secrets.token_urlsafe(16)


def new_display_key() -> str:
    """A class's display key (128 bits), the projector's: stored as it is (the dashboard shows its link again)."""
    return secrets.token_urlsafe(16)


def new_join_seed() -> str:
    """What a class's join link key is derived from (drawn again by New join link)."""
    return secrets.token_urlsafe(16)


def token_hash(token: str) -> str:
    return hashlib.sha256(str(token).encode("utf-8")).hexdigest()


def link_seed(row) -> str:
    """What the students' keys (follow_key, join_key) are derived from: the class's display key, which New teacher
    link leaves as it is, so replacing the teacher token changes nothing a student's page, a printed or projected
    QR code or the projector holds. A row without one (made before schema 3 filled it in): the teacher-token hash."""
    return row._mapping.get("display_key") or row._mapping.get("teacher_hash") or ""


def join_seed(row) -> str:
    """What the join link's key is derived from: the class's own join seed once New join link made one, else its
    link_seed (so links printed before schema 4 keep working until the teacher replaces them)."""
    return row._mapping.get("join_seed") or link_seed(row)


def follow_key(seed: str) -> str:
    """The key a student's page presents to read its class's version over plain HTTP (lab.views.live_class.follow): 128
    bits derived one-way from the class's link_seed, so only a page the class's students were given can ask, and
    the version endpoint is no way to find out which class codes exist."""
    return hashlib.sha256(f"follow:{seed}".encode()).hexdigest()[:32]


def join_key(seed: str) -> str:
    """The key in a class's join link and QR code (``join=``): a join through it is no guess (128 bits derived
    one-way from the class's join seed), so it skips the wrong-code slowing, the class's guessing budget and the
    per-address wrong-code limit (its joins still count per address)."""
    return hashlib.sha256(f"join:{seed}".encode()).hexdigest()[:32]
