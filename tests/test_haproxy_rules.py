"""deploy/haproxy.cfg.template's rules, run in Debian's HAProxy in front of two tiny HTTP servers (no Streamlit):

- a client's own X-Forwarded-For never reaches the app: HAProxy deletes it and sets the address it saw;
- a request whose replica dies with it in flight (the connection is closed without an answer) is retried on
  the other replica instead of ending in a 502 (``retry-on``); the same configuration without that line
  answers 502, so the test can tell.

Needs haproxy: skipped when it is missing, except in CI (CI=true), where that is a failure.
"""

from __future__ import annotations

import http.server
import os
import shutil
import socket
import subprocess
import sys
import threading
import time
import urllib.error
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
HAPROXY = shutil.which("haproxy") or shutil.which("haproxy", path="/usr/sbin:/sbin")
if HAPROXY is None:
    if os.environ.get("CI") == "true":
        pytest.fail("haproxy is not installed (Debian: apt-get install -y haproxy)", pytrace=False)
    pytest.skip("haproxy is not installed", allow_module_level=True)

sys.path.insert(0, str(ROOT / "deploy"))
import serve  # noqa: E402  (deploy/serve.py: the template filled in as for real replicas)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Backend(http.server.BaseHTTPRequestHandler):
    dies = False  # True: answer health checks, close every other request without a word (a replica killed)

    def do_GET(self):  # noqa: N802 (http.server's name)
        if self.path == "/_stcore/health":
            body = b"ok"
        elif self.dies:
            self.close_connection = True
            self.connection.shutdown(socket.SHUT_RDWR)
            return
        else:
            body = ("xff=" + repr(self.headers.get_all("X-Forwarded-For"))).encode()
        self.send_response(200)
        self.send_header("Content-Length", str(len(body)))
        self.end_headers()
        self.wfile.write(body)

    def log_message(self, *args):
        pass


def backend(dies: bool):
    handler = type("Dying" if dies else "Live", (Backend,), {"dies": dies})
    server = http.server.ThreadingHTTPServer(("127.0.0.1", free_port()), handler)
    threading.Thread(target=server.serve_forever, daemon=True).start()
    return server


class Replica:
    def __init__(self, name: str, port: int):
        self.name, self.port = name, port


def proxy(tmp_path: Path, servers, drop: str = ""):
    port = free_port()
    replicas = [Replica(f"r{i + 1}", s.server_address[1]) for i, s in enumerate(servers)]
    config = serve.haproxy_config(tmp_path, "127.0.0.1", port, replicas)
    if drop:
        assert drop in config
        config = config.replace(drop, "")
    path = tmp_path / "haproxy.cfg"
    path.write_text(config)
    proc = subprocess.Popen([HAPROXY, "-db", "-f", str(path)], stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL)
    deadline = time.monotonic() + 20
    while True:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as response:
                if response.read() == b"ok":
                    break
        except OSError:
            pass
        assert proc.poll() is None and time.monotonic() < deadline, "haproxy did not start"
        time.sleep(0.1)
    time.sleep(2.5)  # both servers' first health checks (inter 2s) have passed
    return proc, f"http://127.0.0.1:{port}"


def get(url: str, headers=None) -> tuple[int, str]:
    request = urllib.request.Request(url, headers=headers or {})
    try:
        with urllib.request.urlopen(request, timeout=20) as response:
            return response.status, response.read().decode()
    except urllib.error.HTTPError as exc:
        return exc.code, ""


def stop(proc) -> None:
    proc.terminate()
    proc.wait(timeout=10)


def test_a_clients_x_forwarded_for_is_replaced(tmp_path):
    live = backend(dies=False)
    proc, url = proxy(tmp_path, [live])
    try:
        assert get(f"{url}/x") == (200, "xff=['127.0.0.1']")
        assert get(f"{url}/x", {"X-Forwarded-For": "6.6.6.6"}) == (200, "xff=['127.0.0.1']")
        assert get(f"{url}/x", {"X-Forwarded-For": "6.6.6.6, 7.7.7.7"}) == (200, "xff=['127.0.0.1']")
    finally:
        stop(proc)
        live.shutdown()


@pytest.mark.parametrize("retry_on", [True, False])
def test_a_request_whose_replica_dies_in_flight_is_retried(tmp_path, retry_on):
    dying, live = backend(dies=True), backend(dies=False)
    line = "retry-on conn-failure empty-response response-timeout"
    proc, url = proxy(tmp_path, [dying, live], drop="" if retry_on else line)
    try:
        # no affinity cookie: leastconn alternates, so about half of these reach the dying replica first
        statuses = [get(f"{url}/page{i}")[0] for i in range(8)]
    finally:
        stop(proc)
        dying.shutdown()
        live.shutdown()
    if retry_on:
        assert statuses == [200] * 8
    else:
        assert 502 in statuses  # what the rule removes
