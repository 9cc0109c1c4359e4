"""A throw-away PostgreSQL cluster of one test's own (``.ci/postgres``): the own_postgres fixture (conftest.py) and
the deploy tests that start one for a whole module (tests/test_deploy_limits.py)."""

from __future__ import annotations


class OwnPostgres:
    """A PostgreSQL cluster of one test's own (``.ci/postgres start``), which the test may stop (an outage) and
    start again on the same socket: ``halt()``, ``resume()``."""

    def __init__(self, root):
        import subprocess

        self._root = root
        out = subprocess.run([str(root / ".ci" / "postgres"), "start"], capture_output=True, text=True, check=True)
        values = dict(line.removeprefix("export ").split("=", 1) for line in out.stdout.splitlines() if "=" in line)
        self.dir = values["RESIDUAL_LAB_PG_DIR"]
        self.url = values["RESIDUAL_LAB_TEST_POSTGRES_URL"].strip("'")

    def _run(self, command: str) -> None:
        import subprocess

        subprocess.run([str(self._root / ".ci" / "postgres"), command, self.dir], check=True, capture_output=True)

    def halt(self) -> None:
        self._run("halt")

    def resume(self) -> None:
        self._run("resume")

    def freeze(self) -> None:  # SIGSTOP: connections stay open and nothing answers
        self._run("freeze")

    def thaw(self) -> None:
        self._run("thaw")

    def stop(self) -> None:
        self._run("stop")
