"""Serve Residual Lab to a class: N Streamlit replicas behind HAProxy, on one machine.

    deploy/serve [--replicas N] [--port P] [--address A]

Starts N replicas of server.py (the app and its class-version route; default: one per core) on free loopback
ports, waits until each answers /_stcore/health, writes an HAProxy configuration (deploy/haproxy.cfg.template)
into a run directory and starts Debian's haproxy in the foreground, listening on A:P (default 0.0.0.0:8501,
so that students' phones can reach it). A replica that dies is started again on its port (HAProxy marks it
down meanwhile and sends its students to the others; it marks it up again once its health check passes).
Ctrl-C or SIGTERM stops HAProxy and every replica. HAProxy exiting stops everything (exit code 1).

The run directory (--run-dir, default a new temporary directory, removed at exit) holds haproxy.cfg,
haproxy.sock (HAProxy's admin socket: ``echo "show stat" | socat - haproxy.sock``) and replicas.json
({"name": {"port": ..., "pid": ..., "restarts": ...}}, rewritten whenever a replica is restarted) and each
replica's log (r1.log, ...).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import resource
import secrets
import shutil
import signal
import socket
import subprocess
import sys
import tempfile
import time
import urllib.request
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
TEMPLATE = Path(__file__).resolve().parent / "haproxy.cfg.template"
HEALTH_TIMEOUT = 120  # seconds for a replica to answer its health check after a start


def log(message: str) -> None:
    print(f"serve: {message}", flush=True)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


class Replica:
    def __init__(self, name: str, port: int, app: str, cookie_secret: str, log_path: Path) -> None:
        self.name, self.port, self.app, self.cookie_secret, self.log_path = name, port, app, cookie_secret, log_path
        self.proc: subprocess.Popen | None = None
        self.restarts = 0

    def start(self) -> None:
        command = [sys.executable, "-m", "streamlit", "run", self.app, "--server.headless", "true"]
        command += ["--server.address", "127.0.0.1", "--server.port", str(self.port)]
        command += ["--server.fileWatcherType", "none", "--browser.gatherUsageStats", "false"]
        with self.log_path.open("ab") as log_file:
            self.proc = subprocess.Popen(
                command,
                cwd=ROOT,
                env={
                    **os.environ,
                    # one secret for every replica: a cookie signed by one is valid on the others after a redispatch
                    "STREAMLIT_SERVER_COOKIE_SECRET": self.cookie_secret,
                    # ... and one key for the class database's counters (keyed hashes: lab.classroom.keys)
                    "RESIDUAL_LAB_SECRET": os.environ.get("RESIDUAL_LAB_SECRET")
                    or hashlib.sha256(f"counters:{self.cookie_secret}".encode()).hexdigest(),
                    # the replicas listen on loopback behind HAProxy only: its X-Forwarded-For is the client
                    "RESIDUAL_LAB_TRUSTED_PROXIES": "127.0.0.1,::1",
                    "FORWARDED_ALLOW_IPS": "",  # uvicorn believes no proxy: the app decides (docs/security.md)
                },
                stdout=subprocess.DEVNULL,
                stderr=log_file,
                start_new_session=True,  # Ctrl-C in the terminal reaches serve only; serve stops the replicas
            )

    def healthy(self) -> bool:
        try:
            with urllib.request.urlopen(f"http://127.0.0.1:{self.port}/_stcore/health", timeout=2) as response:
                return response.read().decode().strip() == "ok"
        except OSError:
            return False

    def wait_healthy(self) -> None:
        deadline = time.monotonic() + HEALTH_TIMEOUT
        while time.monotonic() < deadline:
            if self.proc.poll() is not None:
                raise RuntimeError(
                    f"replica {self.name} exited with code {self.proc.returncode} while starting (see {self.log_path})"
                )
            if self.healthy():
                return
            time.sleep(0.2)
        raise RuntimeError(f"replica {self.name} did not answer its health check within {HEALTH_TIMEOUT} s")


def stop(proc: subprocess.Popen | None, timeout: float = 10) -> None:
    if proc is None or proc.poll() is not None:
        return
    proc.terminate()
    try:
        proc.wait(timeout=timeout)
    except subprocess.TimeoutExpired:
        proc.kill()
        proc.wait()


def write_state(run_dir: Path, replicas: list[Replica]) -> None:
    state = {r.name: {"port": r.port, "pid": r.proc.pid, "restarts": r.restarts} for r in replicas}
    tmp = run_dir / "replicas.json.tmp"
    tmp.write_text(json.dumps(state, indent=2))
    tmp.replace(run_dir / "replicas.json")


def haproxy_config(run_dir: Path, address: str, port: int, replicas: list[Replica]) -> str:
    servers = "\n".join(f"    server {r.name} 127.0.0.1:{r.port} cookie {r.name}" for r in replicas)
    bind = f"[{address}]:{port}" if ":" in address else f"{address}:{port}"
    soft, _hard = resource.getrlimit(resource.RLIMIT_NOFILE)
    maxconn = max(256, min(10000, (soft - 100) // 2)) if soft != resource.RLIM_INFINITY else 10000
    return TEMPLATE.read_text().format(run_dir=run_dir, bind=bind, servers=servers, maxconn=maxconn)


class Stop(Exception):
    pass


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--replicas", type=int, default=os.cpu_count() or 1, help="replicas (default: cores)")
    parser.add_argument("--port", type=int, default=8501, help="port HAProxy listens on (default 8501)")
    parser.add_argument("--address", default="0.0.0.0", help="address HAProxy listens on (default 0.0.0.0)")
    parser.add_argument("--app", default="server.py", help="the Streamlit script, relative to the repository")
    parser.add_argument("--run-dir", type=Path, help="where haproxy.cfg, haproxy.sock, replicas.json go")
    parser.add_argument("--haproxy", default="haproxy", help="the haproxy executable")
    args = parser.parse_args(argv)
    if not 1 <= args.replicas <= 64:
        parser.error("--replicas must be between 1 and 64")
    # /usr/sbin is not on every user's PATH
    haproxy_bin = shutil.which(args.haproxy) or shutil.which(args.haproxy, path="/usr/sbin:/sbin")
    if haproxy_bin is None:
        print("serve: haproxy is not installed (Debian: apt-get install haproxy)", file=sys.stderr)
        return 2

    own_dir = args.run_dir is None
    run_dir = Path(tempfile.mkdtemp(prefix="residual-lab-serve-")) if own_dir else args.run_dir.resolve()
    run_dir.mkdir(parents=True, exist_ok=True)

    def on_signal(signum, _frame):
        raise Stop(signal.Signals(signum).name)

    signal.signal(signal.SIGTERM, on_signal)
    signal.signal(signal.SIGINT, on_signal)

    cookie_secret = secrets.token_hex(32)
    replicas = [
        Replica(f"r{i + 1}", free_port(), args.app, cookie_secret, run_dir / f"r{i + 1}.log")
        for i in range(args.replicas)
    ]
    haproxy: subprocess.Popen | None = None
    code = 0
    try:
        for r in replicas:
            r.start()
        for r in replicas:
            r.wait_healthy()
            log(f"replica {r.name} ready on 127.0.0.1:{r.port} (pid {r.proc.pid})")
        write_state(run_dir, replicas)
        config = run_dir / "haproxy.cfg"
        config.write_text(haproxy_config(run_dir, args.address, args.port, replicas))
        check = subprocess.run([haproxy_bin, "-c", "-f", str(config)], capture_output=True, text=True)
        if check.returncode != 0:
            raise RuntimeError(f"haproxy rejected {config}: {(check.stderr + check.stdout).strip()}")
        haproxy = subprocess.Popen([haproxy_bin, "-db", "-f", str(config)], cwd=run_dir, start_new_session=True)
        shown = "localhost" if args.address in ("0.0.0.0", "::") else args.address
        log(f"serving http://{shown}:{args.port}/ through HAProxy (pid {haproxy.pid}) with {len(replicas)} replicas")
        log(f"run directory {run_dir}; Ctrl-C stops everything")
        while True:
            time.sleep(0.5)
            if haproxy.poll() is not None:
                log(f"HAProxy exited with code {haproxy.returncode}; stopping")
                code = 1
                break
            for r in replicas:
                if r.proc.poll() is not None:
                    log(f"replica {r.name} (pid {r.proc.pid}) exited with code {r.proc.returncode}; starting it again")
                    r.restarts += 1
                    r.start()
                    write_state(run_dir, replicas)
    except Stop as stop_signal:
        log(f"{stop_signal}: stopping HAProxy and {len(replicas)} replicas")
    except RuntimeError as exc:
        log(str(exc))
        code = 1
    finally:
        signal.signal(signal.SIGTERM, signal.SIG_IGN)
        signal.signal(signal.SIGINT, signal.SIG_IGN)
        stop(haproxy)
        for r in replicas:
            stop(r.proc)
        if own_dir:
            shutil.rmtree(run_dir, ignore_errors=True)
    return code


if __name__ == "__main__":
    sys.exit(main())
