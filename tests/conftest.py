"""Fixtures shared by the classroom storage tests: a fresh database per test, on SQLite and on PostgreSQL.

PostgreSQL comes from ``RESIDUAL_LAB_TEST_POSTGRES_URL`` (``.ci/postgres start`` prints it). Without it the
PostgreSQL cases are skipped locally but FAIL when ``CI=true``: CI must test the real database.
"""

from __future__ import annotations

import os

import pytest
from pglib import OwnPostgres  # noqa: F401  (the own_postgres fixture's cluster; tests import it from here too)
from sqlalchemy import create_engine

PG_ENV = "RESIDUAL_LAB_TEST_POSTGRES_URL"


@pytest.fixture(scope="session")
def postgres_url() -> str:
    url = os.environ.get(PG_ENV, "").strip()
    if not url:
        if os.environ.get("CI") == "true":
            pytest.fail(f"{PG_ENV} is not set: the classroom tests must run against PostgreSQL in CI (.ci/postgres)")
        pytest.skip(f'{PG_ENV} is not set (run: eval "$(.ci/postgres start)")')
    return url


def _fresh_postgres(url: str):
    from lab.classroom.db import metadata

    engine = create_engine(url)
    metadata.drop_all(engine)
    return engine


@pytest.fixture(params=["sqlite", "postgresql"])
def db_url(request, tmp_path) -> str:
    """A URL of an empty database: a new SQLite file, or the test PostgreSQL database emptied."""
    if request.param == "sqlite":
        return f"sqlite:///{tmp_path / 'classroom.db'}"
    url = request.getfixturevalue("postgres_url")
    _fresh_postgres(url).dispose()
    return url


@pytest.fixture
def engine(db_url):
    from lab.classroom.db import make_engine

    eng = make_engine(db_url)
    yield eng
    eng.dispose()


@pytest.fixture
def data(tmp_path, monkeypatch):
    """The pages' class database for one test: a throw-away SQLite file in ``tmp_path``, where the pages find it
    (RESIDUAL_LAB_DATA; no RESIDUAL_LAB_DATABASE_URL), and its engine for the test's own reads and writes."""
    from lab.classroom.db import make_engine

    monkeypatch.setenv("RESIDUAL_LAB_DATA", str(tmp_path))
    monkeypatch.delenv("RESIDUAL_LAB_DATABASE_URL", raising=False)
    eng = make_engine(f"sqlite:///{tmp_path / 'classroom.db'}")
    yield eng
    eng.dispose()


@pytest.fixture
def own_postgres():
    """A throw-away PostgreSQL cluster for this test alone (stopped and deleted afterwards). Needs Debian's
    postgresql (``.ci/postgres`` installs it); fails in CI rather than skipping when it cannot start."""
    import shutil
    from pathlib import Path

    root = Path(__file__).resolve().parents[1]
    if not Path("/usr/lib/postgresql").exists() and os.environ.get("CI") != "true" and not shutil.which("apt-get"):
        pytest.skip("PostgreSQL is not installed")
    cluster = OwnPostgres(root)
    yield cluster
    cluster.stop()
