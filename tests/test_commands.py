"""The README's two commands on a stock Debian/Ubuntu Python, without containers.

A fresh clone of this repository, PATH holding only /usr/bin (so ``python3`` is Debian's
/usr/bin/python3, there is no ``python``, and no environment is activated): ``./run`` builds the
project's .venv and serves the app until ``/_stcore/health`` answers ``ok``; a second start reuses
.venv; ``bash .ci/run`` adds the test requirements to the same .venv and runs pytest from it (here
only ``--collect-only`` of one file, not the whole suite again). Missing prerequisites (no ensurepip,
Python older than 3.11) end with one line naming what to install. These tests install packages into
fresh environments (a minute or more with a warm pip cache): marked ``slow``, and run by
``bash .ci/run`` like every other test.
"""

from __future__ import annotations

import os
import shutil
import signal
import socket
import subprocess
import time
import urllib.request
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parent.parent
DEBIAN_PYTHON = Path("/usr/bin/python3")
ONLY_USR_BIN = "/usr/bin"
INSTALL_TIMEOUT = 900  # seconds: a fresh .venv downloads streamlit, numpy, scipy, plotly, playwright, ...

pytestmark = pytest.mark.slow


def _need(condition: bool, why: str) -> None:
    """Skip when this machine cannot run the check; in CI that is a failure, not a skip."""
    if not condition:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{why}: this test must run in CI")
        pytest.skip(why)


def _clean_env(**extra: str) -> dict[str, str]:
    """The caller's environment minus anything that picks or activates a Python, PATH = /usr/bin."""
    env = {
        key: value
        for key, value in os.environ.items()
        if not key.startswith(("PYTHON", "PYENV", "VIRTUAL_ENV", "CONDA", "LAB_VENV", "PYTEST"))
    }
    env["PATH"] = ONLY_USR_BIN
    env.update(extra)
    return env


def _free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def _health(port: int) -> str | None:
    try:
        with urllib.request.urlopen(f"http://127.0.0.1:{port}/_stcore/health", timeout=2) as response:
            return response.read().decode().strip()
    except OSError:
        return None


def _stop_group(proc: subprocess.Popen) -> None:
    """Stop ./run and everything it started (it runs in its own process group)."""
    if proc.poll() is None:
        os.killpg(proc.pid, signal.SIGTERM)
        try:
            proc.wait(timeout=15)
        except subprocess.TimeoutExpired:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()


def _start_and_check_health(clone: Path, log: Path, timeout: float) -> str:
    """Start ./run on a free loopback port, wait for health ``ok``, stop it; return its stderr."""
    port = _free_port()
    with log.open("wb") as out:
        proc = subprocess.Popen(
            [
                "./run",
                "--server.headless",
                "true",
                "--server.address",
                "127.0.0.1",
                "--server.port",
                str(port),
                "--server.fileWatcherType",
                "none",
            ],
            cwd=clone,
            env=_clean_env(),
            stdin=subprocess.DEVNULL,
            stdout=out,
            stderr=subprocess.STDOUT,
            start_new_session=True,
        )
    try:
        deadline = time.monotonic() + timeout
        answer = None
        while time.monotonic() < deadline and proc.poll() is None:
            answer = _health(port)
            if answer == "ok":
                break
            time.sleep(0.5)
        text = log.read_text(errors="replace")
        assert proc.poll() is None, f"./run exited with {proc.returncode}:\n{text[-3000:]}"
        assert answer == "ok", f"no ok from /_stcore/health on port {port} within {timeout} s:\n{text[-3000:]}"
        return text
    finally:
        _stop_group(proc)


@pytest.fixture(scope="module")
def clone(tmp_path_factory):
    """A fresh clone of this repository (the working tree's uncommitted edits to tracked files laid
    over it, so the test checks the scripts as they are now; untracked files stay out, as in a clone)."""
    _need(shutil.which("git") is not None and (ROOT / ".git").exists(), "needs git and a git checkout")
    _need(DEBIAN_PYTHON.exists(), f"needs Debian's {DEBIAN_PYTHON}")
    dest = tmp_path_factory.mktemp("clone") / "residual-lab"
    subprocess.run(["git", "clone", "-q", str(ROOT), str(dest)], check=True, timeout=120)
    listed = subprocess.run(
        ["git", "ls-files", "-m", "-d", "-z"], cwd=ROOT, check=True, capture_output=True, text=True
    ).stdout
    for name in filter(None, listed.split("\0")):
        source, target = ROOT / name, dest / name
        if source.exists():
            shutil.copy2(source, target)
        elif target.exists():
            target.unlink()
    assert not (dest / ".venv").exists()
    yield dest
    shutil.rmtree(dest, ignore_errors=True)  # its .venv is close to 1 GB


def test_no_python_named_python_on_the_test_path():
    # The condition the issue is about: a stock Debian has python3 only.
    assert shutil.which("python3", path=ONLY_USR_BIN) == str(DEBIAN_PYTHON)
    assert shutil.which("python", path=ONLY_USR_BIN) is None


def test_run_command_builds_venv_and_serves_health_ok(clone, tmp_path):
    first = _start_and_check_health(clone, tmp_path / "first.log", INSTALL_TIMEOUT)
    assert "Installing requirements.txt" in first
    assert "Traceback" not in first
    # .venv was built from Debian's interpreter (found as python3 on PATH), not from another Python.
    config = (clone / ".venv" / "pyvenv.cfg").read_text()
    assert "home = /usr/bin" in config.splitlines()
    assert (clone / ".venv" / "bin" / "streamlit").exists()
    # git does not see .venv (.gitignore).
    status = subprocess.run(["git", "status", "--porcelain"], cwd=clone, capture_output=True, text=True).stdout
    assert ".venv" not in status

    again = _start_and_check_health(clone, tmp_path / "again.log", 120)
    assert "Installing" not in again and "Creating" not in again, again[-2000:]


def test_test_command_installs_test_requirements_into_the_same_venv(clone):
    done = subprocess.run(
        ["bash", ".ci/run", "--collect-only", "-q", "tests/test_architecture.py"],
        cwd=clone,
        env=_clean_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT,
    )
    output = done.stdout + done.stderr
    assert done.returncode == 0, output[-3000:]
    assert "All checks passed!" in done.stdout  # ruff, from .venv
    assert "tests/test_architecture.py::" in done.stdout  # pytest collected the file, from .venv
    assert "Traceback" not in output
    stamp = (clone / ".venv" / "lab-requirements.sha256").read_text().split()
    assert "requirements-test.txt" in stamp and "requirements.txt" in stamp
    assert (clone / ".venv" / "bin" / "pytest").exists()


def test_test_command_fails_when_pytest_collects_nothing(clone):
    done = subprocess.run(
        ["bash", ".ci/run", "-q", "-k", "no_test_has_this_name", "tests/test_architecture.py"],
        cwd=clone,
        env=_clean_env(),
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=INSTALL_TIMEOUT,
    )
    assert done.returncode == 1, done.stdout + done.stderr
    assert "pytest collected no tests" in done.stderr


# --- requirements changes: reuse, extend, rebuild (a tiny project with comment-only requirements) ---


def _ensure(project: Path, requirements: str) -> subprocess.CompletedProcess:
    script = f'. "{ROOT}/scripts/venv.sh" && lab_venv_ensure {requirements} && echo "python=$LAB_VENV_PYTHON"'
    return subprocess.run(
        ["bash", "-c", script], cwd=project, env=_clean_env(), capture_output=True, text=True, timeout=300
    )


def test_venv_is_reused_extended_and_rebuilt_when_requirements_change(tmp_path):
    _need(DEBIAN_PYTHON.exists(), f"needs Debian's {DEBIAN_PYTHON}")
    (tmp_path / "requirements.txt").write_text("# runtime: nothing\n")
    (tmp_path / "requirements-test.txt").write_text("-r requirements.txt\n# tests: nothing more\n")
    marker = tmp_path / ".venv" / "marker"

    created = _ensure(tmp_path, "requirements.txt")
    assert created.returncode == 0, created.stderr
    assert "Creating .venv" in created.stderr and "python=.venv/bin/python" in created.stdout
    marker.write_text("still the same environment")

    reused = _ensure(tmp_path, "requirements.txt")
    assert reused.returncode == 0 and reused.stderr == "" and marker.exists()

    extended = _ensure(tmp_path, "requirements-test.txt")
    assert extended.returncode == 0, extended.stderr
    assert "Installing requirements-test.txt" in extended.stderr and "Creating" not in extended.stderr
    assert marker.exists()
    assert _ensure(tmp_path, "requirements.txt").stderr == ""
    assert _ensure(tmp_path, "requirements-test.txt").stderr == ""

    # requirements.txt (included by requirements-test.txt) changes: the environment is built anew.
    (tmp_path / "requirements.txt").write_text("# runtime: nothing, edited\n")
    rebuilt = _ensure(tmp_path, "requirements-test.txt")
    assert rebuilt.returncode == 0, rebuilt.stderr
    assert "requirements.txt changed" in rebuilt.stderr and "Creating .venv" in rebuilt.stderr
    assert not marker.exists()
    assert _ensure(tmp_path, "requirements.txt").stderr == ""


# --- missing prerequisites: one line naming what to install, exit code 1, no .venv left behind ---


def _fake_python(tmp_path: Path, sitecustomize: str) -> Path:
    """Debian's python3 with a sitecustomize that changes what it reports (a wrapper on PATH)."""
    site = tmp_path / "site"
    site.mkdir()
    (site / "sitecustomize.py").write_text(sitecustomize)
    wrapper = tmp_path / "python3"
    wrapper.write_text(f'#!/bin/sh\nPYTHONPATH="{site}" exec {DEBIAN_PYTHON} "$@"\n')
    wrapper.chmod(0o755)
    return wrapper


def _run_command_with(python: Path, tmp_path: Path) -> subprocess.CompletedProcess:
    venv = tmp_path / "venv"
    env = _clean_env(PYTHON=str(python), LAB_VENV=str(venv))
    done = subprocess.run(
        [str(ROOT / "run"), "--server.address", "127.0.0.1", "--server.port", str(_free_port())],
        env=env,
        stdin=subprocess.DEVNULL,
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert not venv.exists()
    return done


@pytest.mark.parametrize(
    ("sitecustomize", "first_words"),
    [
        # As on Debian without python3-venv: the ensurepip module is absent.
        ('import sys\nsys.modules["ensurepip"] = None\n', "python3-venv is missing: sudo apt-get install python3-venv"),
        ('import sys\nsys.version_info = (3, 9, 18, "final", 0)\n', "Python 3.11 or newer is needed, found 3.9"),
    ],
    ids=["missing-ensurepip", "python-3.9"],
)
def test_a_missing_prerequisite_is_one_named_line(tmp_path, sitecustomize, first_words):
    _need(DEBIAN_PYTHON.exists(), f"needs Debian's {DEBIAN_PYTHON}")
    python = _fake_python(tmp_path, sitecustomize)
    done = _run_command_with(python, tmp_path)
    assert done.returncode == 1
    lines = done.stderr.splitlines()
    assert len(lines) == 1, done.stderr
    assert lines[0].startswith(first_words)
    assert done.stdout == ""
