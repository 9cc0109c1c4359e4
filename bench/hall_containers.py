"""The lecture hall (bench/bench_classroom.py --hall) against the container deployment, in one command.

    sudo .venv/bin/python bench/hall_containers.py [--hall 600] [--hall-rounds 3]

Builds the images with deploy/container/build (tag ``bench-hall``, so that the run plays exactly what it built;
unchanged layers come from podman's store), brings up deploy/podman/residual-lab.yaml with ``podman play kube``
(PostgreSQL, 2 app replicas, HAProxy on a free loopback port) on a network, secret and volume of its own
(``residual-lab-bench``), waits until both replicas answer through HAProxy, finds the replicas' server
processes (their host pids, for CPU from /proc) and PostgreSQL's address on the network (root podman's bridge:
this machine reaches it directly; the password from the secrets deploy/container/make-secrets made), then runs
``hall_bench`` against it: the app in the containers, the floor (bench/minimal_app.py) through deploy/serve with
2 replicas on this machine, in the same run. Everything it made (pods, secret, volume, network) is removed at the
end, also on an error, Ctrl-C or SIGTERM.

It holds the lock of tests/test_containers.py (tests/podmanlib.py), so the two never run at once; it refuses to
start beside pods of another residual-lab deployment. Needs root and Debian's podman (see
docs/deployment.md, "One machine with podman").
"""

from __future__ import annotations

import argparse
import os
import shutil
import signal
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(ROOT))

from bench.bench_classroom import hall_bench  # noqa: E402
from tests.podmanlib import (  # noqa: E402
    APP,
    POSTGRES_POD,
    build_images,
    haproxy_stats,
    hold_the_lock,
    http_get,
    last_log_lines,
    left_behind,
    play,
    pod_address,
    podman,
    podman_objects,
    prepare,
    residual_lab_pods,
    tear_down,
    wait_for,
)

PREFIX = "residual-lab-bench"  # this bench's network (PREFIX-PID), secret and volume
TAG = "bench-hall"


def say(message: str) -> None:
    print(f"hall_containers: {message}", flush=True)


def server_pid(container: str) -> int:
    """The host pid of a replica's main process, checked to be the Streamlit server (start.py execs into it)."""
    pid = int(podman("inspect", container, "--format", "{{.State.Pid}}").stdout)
    command = Path(f"/proc/{pid}/cmdline").read_bytes().split(b"\0")
    assert b"streamlit" in command and b"server.py" in command, (container, pid, command)
    return pid


def replicas_answer(url: str) -> bool:
    """Both replicas UP in HAProxy, and each answers /_stcore/health through HAProxy when asked by its cookie
    (HAProxy sets no new cookie: the request reached that replica)."""
    try:
        if not all(row["status"] == "UP" for row in haproxy_stats().values()):
            return False
    except AssertionError:  # podman exec failed: HAProxy's stats page does not answer yet
        return False
    answers = [http_get(f"{url}/_stcore/health", cookie=f"RLSERVER={r}") for r in ("r0", "r1")]
    return all(
        status == 200 and body == b"ok" and not any(c.startswith("RLSERVER=") for c in cookies)
        for status, cookies, body in answers
    )


def run(sizes: list[int], rounds: int) -> None:
    lock = hold_the_lock()
    try:
        t = time.monotonic()
        built = build_images(TAG)
        if built.returncode != 0:
            raise SystemExit(f"deploy/container/build failed:\n{built.stderr[-3000:]}")
        say(f"images built in {time.monotonic() - t:.0f} s: {' / '.join(built.stderr.strip().splitlines())}")
        ours, others = residual_lab_pods()
        if others:
            raise SystemExit(f"pods {others} of another residual-lab deployment run here; stop them first")
        if ours:
            say(f"removing pods a killed run left: {ours}")
            tear_down(None)
        in_store = podman_objects()
        work = Path(tempfile.mkdtemp(prefix="hall-containers-"))
        deployment = prepare(PREFIX, work, TAG)
        url = deployment.url
        try:
            t = time.monotonic()
            play(deployment)
            wait_for("/_stcore/health through HAProxy", lambda: http_get(f"{url}/_stcore/health")[2] == b"ok", 180)
            wait_for("both replicas answering through HAProxy", lambda: replicas_answer(url), 120, every=1)
            say(f"play kube and both replicas answering through HAProxy at {url}: {time.monotonic() - t:.0f} s")
            pids = [server_pid(name) for name in APP]
            password = (deployment.secrets / "postgres-password").read_text().strip()
            address = pod_address(POSTGRES_POD, deployment.network)
            database = f"postgresql+psycopg://lab:{password}@{address}:5432/residual_lab"
            say(f"replicas' server processes: {pids}; load average {os.getloadavg()[0]:.2f}")
            hall_bench(sizes, rounds=rounds, running=(url, pids, database))
            restarts = [podman("inspect", name, "--format", "{{.RestartCount}}").stdout.strip() for name in APP]
            say(f"load average at the end {os.getloadavg()[0]:.2f}; replicas' restarts during the run: {restarts}")
        except BaseException:
            say(last_log_lines())
            raise
        finally:
            signal.signal(signal.SIGINT, signal.SIG_IGN)  # a second Ctrl-C must not cut the tear-down short
            t = time.monotonic()
            tear_down(deployment.play_file)
            shutil.rmtree(work, ignore_errors=True)  # the play file and the secrets made for this run
            left = left_behind(in_store)
            say(f"torn down in {time.monotonic() - t:.1f} s; left behind: {left or 'nothing'}")
    finally:
        lock.close()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--hall", default="600", help="class sizes, e.g. 600 or 20,600 (default 600)")
    parser.add_argument("--hall-rounds", type=int, default=3, help="each action measured this many times")
    args = parser.parse_args()
    if os.geteuid() != 0:
        raise SystemExit("hall_containers: needs root podman")
    signal.signal(signal.SIGTERM, lambda *_: sys.exit(143))  # SIGTERM tears down as Ctrl-C does
    signal.signal(signal.SIGHUP, lambda *_: sys.exit(129))
    run([int(n) for n in args.hall.split(",")], args.hall_rounds)


if __name__ == "__main__":
    main()
