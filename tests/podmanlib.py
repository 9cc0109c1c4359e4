"""deploy/podman/residual-lab.yaml brought up and down with root podman on this machine (no pytest): the one home
of that code for tests/test_containers.py (the end-to-end test) and bench/hall_containers.py (the lecture hall
against the containers). A test helper, so it lives under tests/ (as browserlib.py): the test imports it as
``podmanlib``, the bench as ``tests.podmanlib``.

A run holds LOCK for all its life (the pods' names are fixed by the YAML: one deployment of them at a time on a
machine) and makes its network, secret and volume under its own name prefix (one of OUR_PREFIXES). With the lock
held, anything under one of those prefixes is a run's own or the leftover of a killed run, so ``tear_down``
removes all of it; pods on any other network (a real deployment) are never touched.
"""

from __future__ import annotations

import fcntl
import ipaddress
import json
import os
import shutil
import socket
import subprocess
import time
import urllib.error
import urllib.request
from dataclasses import dataclass
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
PLAY_KUBE = ROOT / "deploy" / "podman" / "residual-lab.yaml"
BUILD = ROOT / "deploy" / "container" / "build"
MAKE_SECRETS = ROOT / "deploy" / "container" / "make-secrets"
CONTAINERS_CONF = ROOT / "deploy" / "container" / "containers.conf"
APP = ["residual-lab-pod-0-app", "residual-lab-pod-1-app"]
PROXY = "residual-lab-proxy-pod-0-haproxy"
POSTGRES = "residual-lab-postgres-pod-0-postgres"
POSTGRES_POD = "residual-lab-postgres-pod-0"
# the test's and the bench's network, secret and volume names start with one of these (a real deployment's are
# "residual-lab"); a network is PREFIX-PID, the secret PREFIX, the volume PREFIX-postgres
OUR_PREFIXES = ("residual-lab-test", "residual-lab-bench")
LOCK = Path("/run/lock" if Path("/run/lock").is_dir() else "/tmp") / "residual-lab-containers-test.lock"


def podman(*args: str, check: bool = True, timeout: float = 300) -> subprocess.CompletedProcess:
    env = {**os.environ, "CONTAINERS_CONF": str(CONTAINERS_CONF)}
    result = subprocess.run(["podman", *args], capture_output=True, text=True, timeout=timeout, env=env)
    if check and result.returncode != 0:
        raise AssertionError(f"podman {' '.join(args)}: exit {result.returncode}: {result.stderr.strip()}")
    return result


def build_images(tag: str = "latest") -> subprocess.CompletedProcess:
    """deploy/container/build: the three images, tagged ``tag`` (unchanged layers come from the store)."""
    env = {**os.environ, "CONTAINERS_CONF": str(CONTAINERS_CONF), "RESIDUAL_LAB_IMAGE_TAG": tag}
    return subprocess.run([str(BUILD)], capture_output=True, text=True, timeout=1200, env=env)


def free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def http_get(url: str, cookie: str = "", timeout: float = 5) -> tuple[int, list[str], bytes]:
    """Status, the Set-Cookie headers and the body of a GET."""
    request = urllib.request.Request(url, headers={"Cookie": cookie} if cookie else {})
    try:
        with urllib.request.urlopen(request, timeout=timeout) as response:
            return response.status, response.headers.get_all("Set-Cookie") or [], response.read()
    except urllib.error.HTTPError as exc:
        return exc.code, exc.headers.get_all("Set-Cookie") or [], exc.read()


def wait_for(what: str, check, timeout: float, every: float = 0.5):
    deadline = time.monotonic() + timeout
    last = None
    while time.monotonic() < deadline:
        try:
            last = check()
            if last:
                return last
        except OSError as exc:
            last = exc
        time.sleep(every)
    raise AssertionError(f"{what}: not within {timeout:.0f} s (last: {last!r})")


def haproxy_stats() -> dict[str, dict[str, str]]:
    """HAProxy's stats of the replicas (r0, r1), read inside the proxy's pod (the page is on its loopback)."""
    script = 'import urllib.request; print(urllib.request.urlopen("http://127.0.0.1:8404/stats;csv").read().decode())'
    lines = podman("exec", PROXY, "python3", "-c", script, timeout=30).stdout.splitlines()
    header = lines[0].lstrip("# ").split(",")
    rows = [dict(zip(header, line.split(","))) for line in lines[1:] if line]
    return {r["svname"]: r for r in rows if r["pxname"] == "replicas" and r["svname"] in ("r0", "r1")}


def free_subnet() -> str:
    """A /24 no podman network and no route of this machine uses."""
    used = set()
    for name in podman("network", "ls", "--format", "{{.Name}}").stdout.split():
        info = json.loads(podman("network", "inspect", name).stdout)[0]
        used |= {s["subnet"] for s in info.get("subnets", [])}
    routes = subprocess.run(["ip", "-4", "route"], capture_output=True, text=True).stdout if shutil.which("ip") else ""
    for third in range(240, 250):
        subnet = f"10.89.{third}.0/24"
        net = ipaddress.ip_network(subnet)
        if subnet not in used and not any(
            w.count(".") == 3 and ipaddress.ip_network(w, strict=False).overlaps(net)
            for w in routes.split()
            if w[0].isdigit() and "/" in w
        ):
            return subnet
    raise AssertionError("no free 10.89.240-249.0/24 subnet for the test network")


def hold_the_lock(timeout: float = 900):
    """One run at a time on a machine (the pods' names are fixed): wait for another run to end. Released when the
    returned file is closed (or the process ends)."""
    handle = LOCK.open("w")
    deadline = time.monotonic() + timeout
    while True:
        try:
            fcntl.flock(handle, fcntl.LOCK_EX | fcntl.LOCK_NB)
            return handle
        except BlockingIOError:
            assert time.monotonic() < deadline, f"another run held {LOCK} for {timeout / 60:.0f} minutes"
            time.sleep(2)


def residual_lab_pods() -> tuple[list[str], list[str]]:
    """(pods named residual-lab* on one of our networks, those on any other network: another deployment's)."""
    ours, others = [], []
    for pod in podman("pod", "ps", "--format", "{{.Name}}", "--filter", "name=^residual-lab").stdout.split():
        networks = podman("pod", "inspect", pod, "--format", "{{.InfraConfig.Networks}}", check=False).stdout
        (ours if any(f"{prefix}-" in networks for prefix in OUR_PREFIXES) else others).append(pod)
    return ours, others


def tear_down(play_file: Path | None) -> None:
    """Our pods (those of ``play_file`` and any on one of our networks), then every secret, volume and network
    named with one of OUR_PREFIXES. Call it with the lock held."""
    if play_file is not None:
        podman("play", "kube", "--down", str(play_file), check=False, timeout=120)
    for pod in residual_lab_pods()[0]:
        podman("pod", "rm", "--force", pod, check=False, timeout=120)
    for kind in ("secret", "volume", "network"):
        for name in podman(kind, "ls", "--format", "{{.Name}}").stdout.split():
            if name.startswith(OUR_PREFIXES):
                podman(kind, "rm", *(["--force"] if kind != "secret" else []), name, check=False, timeout=120)


def play_file_for(prefix: str, directory: Path, port: int, subnet: str, tag: str = "latest") -> Path:
    """deploy/podman/residual-lab.yaml with this run's port, secret, volume, network addresses and image tag."""
    text = PLAY_KUBE.read_text()
    replacements = {
        "hostPort: 8501": f"hostPort: {port}",
        "secretKeyRef: {name: residual-lab,": f"secretKeyRef: {{name: {prefix},",
        "claimName: residual-lab-postgres": f"claimName: {prefix}-postgres",
        "value: 10.89.24.0/24": f"value: {subnet}",
        **{f"image: localhost/{name}:latest": f"image: localhost/{name}:{tag}" for name in (
            "residual-lab", "residual-lab-postgres", "residual-lab-haproxy")},
    }  # fmt: skip
    for old, new in replacements.items():
        assert old in text, old
        text = text.replace(old, new)
    path = directory / "residual-lab.yaml"
    path.write_text(text)
    return path


@dataclass(frozen=True)
class Deployment:
    """One run's deployment of deploy/podman/residual-lab.yaml under ``prefix`` (one of OUR_PREFIXES): where it
    answers, its network and subnet, its play file (for ``tear_down``) and the secrets deploy/container/make-secrets
    wrote for it."""

    prefix: str
    url: str
    port: int
    network: str
    subnet: str
    play_file: Path
    secrets: Path


def prepare(prefix: str, directory: Path, tag: str = "latest") -> Deployment:
    """A free loopback port and subnet, the play file and fresh secrets in ``directory``; nothing made in podman
    yet."""
    port, subnet = free_port(), free_subnet()
    secrets = directory / "secrets"
    subprocess.run([str(MAKE_SECRETS), str(secrets), POSTGRES_POD], check=True, timeout=30)
    return Deployment(
        prefix=prefix, url=f"http://127.0.0.1:{port}", port=port, network=f"{prefix}-{os.getpid()}", subnet=subnet,
        play_file=play_file_for(prefix, directory, port, subnet, tag), secrets=secrets,
    )  # fmt: skip


def play(deployment: Deployment) -> float:
    """Its network and secret, then ``podman play kube``; the seconds play kube took. Call it with the lock held, and
    ``tear_down(deployment.play_file)`` afterwards, also when this fails."""
    podman("network", "create", "--subnet", deployment.subnet, deployment.network)
    podman("secret", "create", deployment.prefix, str(deployment.secrets / "podman-secret.json"))
    started = time.monotonic()
    podman("play", "kube", "--network", deployment.network, str(deployment.play_file), timeout=300)
    return time.monotonic() - started


def pod_address(pod: str, network: str) -> str:
    """The address of ``pod`` on ``network`` (root podman's bridge: this machine reaches it directly)."""
    infra = podman("pod", "inspect", pod, "--format", "{{.InfraContainerID}}").stdout.strip()
    networks = json.loads(podman("inspect", infra, "--format", "{{json .NetworkSettings.Networks}}").stdout)
    return networks[network]["IPAddress"]


LISTINGS = {
    "pods": ("pod", "ps", "--format", "{{.Name}}"),
    "containers": ("ps", "--all", "--format", "{{.Names}}"),
    "volumes": ("volume", "ls", "--format", "{{.Name}}"),
    "networks": ("network", "ls", "--format", "{{.Name}}"),
    "secrets": ("secret", "ls", "--format", "{{.Name}}"),
}


def podman_objects() -> dict[str, set[str]]:
    """What podman's store holds besides images, by name."""
    return {kind: set(podman(*command).stdout.split()) for kind, command in LISTINGS.items()}


def left_behind(before: dict[str, set[str]]) -> dict[str, list[str]]:
    """What podman's store holds now and did not in ``before`` (podman_objects())."""
    after = podman_objects()
    return {kind: sorted(after[kind] - before[kind]) for kind in after if after[kind] - before[kind]}


def last_log_lines(lines: int = 15) -> str:
    """The last log lines of every container of the deployment."""
    said = []
    for name in [POSTGRES, *APP, PROXY]:
        logs = podman("logs", "--tail", str(lines), name, check=False)
        said.append(f"--- last log lines of {name}:\n{logs.stdout}{logs.stderr}")
    return "\n".join(said)
