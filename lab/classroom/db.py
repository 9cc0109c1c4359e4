"""The classroom database: where it lives, how SQLite is tuned, and the versioned schema.

Any SQLAlchemy engine works: the page passes ``st.connection("classroom", type="sql").engine``, the tests pass
engines on SQLite files and on PostgreSQL. Nothing here imports Streamlit.

- Default: an embedded SQLite file ``<data dir>/classroom.db``; the data dir is ``data/`` in the repository,
  or the folder named by ``RESIDUAL_LAB_DATA``.
- ``RESIDUAL_LAB_DATABASE_URL`` (or ``[connections.classroom] url`` in .streamlit/secrets.toml, read by
  Streamlit) switches to another database, e.g. ``postgresql+psycopg://user@host/db``.
- SQLite runs in WAL mode with a busy timeout; writes take the write lock at BEGIN (``BEGIN IMMEDIATE``), so
  two writers queue instead of failing halfway.
- Every wait has a bound (engine_options): connecting (PostgreSQL ``connect_timeout``), a statement and a lock
  wait on the server (``statement_timeout``, ``lock_timeout``), a connection from the pool (``pool_timeout``), all
  ``RESIDUAL_LAB_DB_TIMEOUT_S`` (default 3 s); a server that stops answering altogether is bounded by the
  pages' gate (lab.classroom.gate).
"""

from __future__ import annotations

import os
import secrets
import time
from collections.abc import Callable
from pathlib import Path

from sqlalchemy import (
    Column,
    Float,
    ForeignKey,
    Index,
    Integer,
    MetaData,
    Table,
    Text,
    UniqueConstraint,
    create_engine,
    event,
    inspect,
    text,
)
from sqlalchemy.engine import Connection, Engine

from lab.classroom.gate import timeout_s

SCHEMA_VERSION = 6
DATA_ENV = "RESIDUAL_LAB_DATA"
URL_ENV = "RESIDUAL_LAB_DATABASE_URL"
REPO_ROOT = Path(__file__).resolve().parents[2]
BUSY_TIMEOUT_MS = 10_000


def data_dir() -> Path:
    return Path(os.environ.get(DATA_ENV) or REPO_ROOT / "data")


def database_url() -> str:
    """The URL from ``RESIDUAL_LAB_DATABASE_URL``, else the SQLite file in the data folder (created)."""
    url = os.environ.get(URL_ENV, "").strip()
    if url:
        return url
    folder = data_dir()
    folder.mkdir(parents=True, exist_ok=True)
    return f"sqlite:///{folder / 'classroom.db'}"


metadata = MetaData()

schema_version = Table("schema_version", metadata, Column("version", Integer, nullable=False))

classes = Table(
    "classes",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("code", Text, nullable=False, unique=True),
    Column("name", Text, nullable=False, server_default=""),
    Column("teacher_hash", Text, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("ended_at", Float),
    Column("current_activity", Integer),
    Column("version", Integer, nullable=False, server_default="0"),
    Column("student_count", Integer, nullable=False, server_default="0"),
    Column("display_key", Text),  # the projector's display-only key (schema 3)
    Column("join_address", Text),  # the app address students use, typed on the dashboard (schema 3)
    # who gets in (schema 4): joins locked since, the expected size beyond which joins wait for the teacher, the
    # seed of the join link's key (New join link replaces it), the server's count of wrong codes when it opened
    Column("joins_locked_at", Float),
    Column("expected_size", Integer),
    Column("join_seed", Text),
    Column("guess_base", Integer, nullable=False, server_default="0"),
    Column("anonymous", Integer, nullable=False, server_default="0"),  # 1: students join without a name (schema 6)
    Column("plan", Text),  # the lesson plan kept with the class, JSON (lab.classroom.plans; schema 6)
)

activities = Table(
    "activities",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("class_id", Integer, ForeignKey("classes.id", ondelete="CASCADE"), nullable=False),
    Column("position", Integer, nullable=False),
    Column("kind", Text, nullable=False),
    Column("params", Text, nullable=False),
    Column("opened_at", Float, nullable=False),
    Column("revealed_at", Float),
    Column("locked_at", Float),
    Column("round", Integer, nullable=False, server_default="1"),  # peer instruction: the vote's round (schema 3)
    Column("shown_at", Float),  # "Show responses" pressed for the current round (schema 3)
    # the countdown (schema 6): its length in seconds for each round (NULL: none), and when the running round's vote
    # closes (NULL: no countdown running); the round is locked from then on, as by Lock
    Column("timer_s", Integer),
    Column("closes_at", Float),
    Index("ix_activities_class", "class_id"),
)

students = Table(
    "students",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("class_id", Integer, ForeignKey("classes.id", ondelete="CASCADE"), nullable=False),
    Column("token_hash", Text, nullable=False, unique=True),
    Column("name", Text, nullable=False),
    Column("joined_at", Float, nullable=False),
    Column("removed_at", Float),
    Column("rate_start", Float, nullable=False, server_default="0"),
    Column("rate_count", Integer, nullable=False, server_default="0"),
    Column("browser_hash", Text),  # keyed HMAC of the browser session that joined (lab.classroom.keys): bans
    Column("approved", Integer, nullable=False, server_default="1"),  # 0: waits for the teacher (schema 4)
    Column("identifier", Text, nullable=False, server_default=""),  # a student number they may give (schema 5)
    Index("ix_students_class", "class_id"),
)

submissions = Table(
    "submissions",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("activity_id", Integer, ForeignKey("activities.id", ondelete="CASCADE"), nullable=False),
    Column("student_id", Integer, ForeignKey("students.id", ondelete="CASCADE"), nullable=False),
    Column("problem", Integer, nullable=False, server_default="0"),  # 0 for a prediction
    Column("answer", Text, nullable=False),
    Column("correct", Integer, nullable=False, server_default="0"),
    Column("tries", Integer, nullable=False, server_default="0"),
    Column("revisions", Integer, nullable=False, server_default="1"),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
    UniqueConstraint("activity_id", "student_id", "problem", name="uq_submission"),
)

# Peer instruction: a prediction of an earlier round of an activity, kept when the teacher opens the next round
# (submissions holds each activity's current round). Schema 3.
earlier_answers = Table(
    "earlier_answers",
    metadata,
    Column("activity_id", Integer, ForeignKey("activities.id", ondelete="CASCADE"), nullable=False),
    Column("student_id", Integer, ForeignKey("students.id", ondelete="CASCADE"), nullable=False),
    Column("round", Integer, nullable=False),
    Column("answer", Text, nullable=False),
    Column("tries", Integer, nullable=False),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
    UniqueConstraint("activity_id", "student_id", "round", name="uq_earlier_answer"),
)

# A teacher link replaced by "New teacher link": its hash, so the old link is refused with a message that says
# what happened. Schema 3.
retired_teacher_links = Table(
    "retired_teacher_links",
    metadata,
    Column("class_id", Integer, ForeignKey("classes.id", ondelete="CASCADE"), nullable=False),
    Column("token_hash", Text, nullable=False),
    Column("retired_at", Float, nullable=False),
    Index("ix_retired_teacher_links_class", "class_id"),
)

join_failures = Table(  # wrong class codes per browser session (client_hash: a keyed HMAC, lab.classroom.keys)
    "join_failures",
    metadata,
    Column("client_hash", Text, primary_key=True),
    Column("failures", Integer, nullable=False),
    Column("last_at", Float, nullable=False),
)

# Counters in fixed windows (joins per browser session and per address, the server's wrong-code budget): the
# key names the counter and its window (a keyed HMAC where it involves a browser or an address); rows whose
# window ended are deleted by the purge.
rate_counters = Table(
    "rate_counters",
    metadata,
    Column("key", Text, primary_key=True),
    Column("window_end", Float, nullable=False),
    Column("count", Integer, nullable=False),
)

studies = Table(
    "studies",
    metadata,
    Column("id", Integer, primary_key=True, autoincrement=True),
    Column("token_hash", Text, nullable=False, unique=True),
    Column("created_at", Float, nullable=False),
    Column("updated_at", Float, nullable=False),
)

study_attempts = Table(
    "study_attempts",
    metadata,
    Column("study_id", Integer, ForeignKey("studies.id", ondelete="CASCADE"), nullable=False),
    Column("assignment", Text, nullable=False),  # "seed-level"
    Column("problem", Integer, nullable=False),
    Column("answer", Text, nullable=False),
    Column("correct", Integer, nullable=False),
    Column("tries", Integer, nullable=False),
    Column("hints_used", Integer, nullable=False),
    Column("updated_at", Float, nullable=False),
    UniqueConstraint("study_id", "assignment", "problem", name="uq_study_attempt"),
)


def _tune_sqlite(engine: Engine) -> None:
    """WAL, busy timeout, foreign keys, and BEGIN IMMEDIATE for writes (SQLAlchemy's pysqlite recipe)."""
    if engine.dialect.name != "sqlite" or getattr(engine, "_residual_lab_tuned", False):
        return

    @event.listens_for(engine, "connect")
    def _on_connect(dbapi_connection, _record):
        dbapi_connection.isolation_level = None  # SQLAlchemy emits BEGIN itself (below)
        cursor = dbapi_connection.cursor()
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        cursor.execute("PRAGMA journal_mode = WAL")
        cursor.execute("PRAGMA synchronous = NORMAL")  # WAL + NORMAL: a commit survives a killed process
        cursor.execute("PRAGMA foreign_keys = ON")
        cursor.close()

    @event.listens_for(engine, "begin")
    def _on_begin(connection):
        mode = connection.get_execution_options().get("sqlite_begin", "DEFERRED")
        connection.exec_driver_sql(f"BEGIN {mode}")

    engine._residual_lab_tuned = True
    engine.dispose()  # connections opened before the listeners were added are not reused


def writing(engine: Engine):
    """``with writing(engine) as conn:`` one write transaction (BEGIN IMMEDIATE on SQLite), committed at
    the end of the block, rolled back entirely on an exception."""
    return engine.execution_options(sqlite_begin="IMMEDIATE").begin()


def reading(engine: Engine):
    return engine.connect()


def _schema_3(conn: Connection) -> None:
    """Schema 3 (class projector, peer-instruction rounds, teacher-link rotation): the new columns, added where
    missing (a table create_all just made has them already), then a projector key for every older class. The new
    tables earlier_answers and retired_teacher_links come from create_all."""
    for table, column, kind in (
        ("classes", "display_key", "TEXT"),
        ("classes", "join_address", "TEXT"),
        ("activities", "round", "INTEGER NOT NULL DEFAULT 1"),
        ("activities", "shown_at", "FLOAT"),
    ):
        if column not in {c["name"] for c in inspect(conn).get_columns(table)}:
            conn.execute(text(f"ALTER TABLE {table} ADD COLUMN {column} {kind}"))
    for (class_id,) in conn.execute(text("SELECT id FROM classes WHERE display_key IS NULL")).all():
        conn.execute(
            text("UPDATE classes SET display_key = :k WHERE id = :id"), {"k": secrets.token_urlsafe(16), "id": class_id}
        )


def _schema_4(conn: Connection) -> None:
    """Schema 4 (who gets in: lock, expected size, replaceable join link, per-class guessing budget, approval)."""
    for table, column, kind in (
        ("classes", "joins_locked_at", "FLOAT"),
        ("classes", "expected_size", "INTEGER"),
        ("classes", "join_seed", "TEXT"),
        ("classes", "guess_base", "INTEGER NOT NULL DEFAULT 0"),
        ("students", "approved", "INTEGER NOT NULL DEFAULT 1"),
    ):
        if column not in {c["name"] for c in inspect(conn).get_columns(table)}:
            conn.execute(text(f"ALTER TABLE {table} ADD COLUMN {column} {kind}"))


def _schema_5(conn: Connection) -> None:
    """Schema 5: the identifier a student may give when joining (a student number, for an LMS)."""
    if "identifier" not in {c["name"] for c in inspect(conn).get_columns("students")}:
        conn.execute(text("ALTER TABLE students ADD COLUMN identifier TEXT NOT NULL DEFAULT ''"))


def _schema_6(conn: Connection) -> None:
    """Schema 6: the countdown of an activity's round, anonymous classes, a class's lesson plan."""
    for table, column, kind in (
        ("activities", "timer_s", "INTEGER"),
        ("activities", "closes_at", "FLOAT"),
        ("classes", "anonymous", "INTEGER NOT NULL DEFAULT 0"),
        ("classes", "plan", "TEXT"),
    ):
        if column not in {c["name"] for c in inspect(conn).get_columns(table)}:
            conn.execute(text(f"ALTER TABLE {table} ADD COLUMN {column} {kind}"))


# Step by step from the stored version to SCHEMA_VERSION: MIGRATIONS[v] takes a database at v - 1 to v. New tables
# come from create_all (prepare); a migration adds columns to existing tables and converts data. Add the next
# version at the end (each one small), never edit a landed one.
MIGRATIONS: dict[int, tuple[str | Callable[[Connection], None], ...]] = {
    2: (
        "ALTER TABLE students ADD COLUMN browser_hash TEXT",
        # counters were keyed by an unsalted SHA-256 of the address (reversible for IPv4): forget them
        "DELETE FROM join_failures",
    ),
    3: (_schema_3,),
    4: (_schema_4,),
    5: (_schema_5,),
    6: (_schema_6,),
}


def _migrate(conn, found: int) -> None:
    for version in range(found + 1, SCHEMA_VERSION + 1):
        for step in MIGRATIONS.get(version, ()):
            if callable(step):  # a Python step, run after the SQL statements listed before it
                step(conn)
            else:
                conn.execute(text(step))
        conn.execute(text("UPDATE schema_version SET version = :v"), {"v": version})


def prepare(engine: Engine) -> Engine:
    """Tune SQLite, create the schema if needed, migrate it to this app's version. Idempotent; returns the
    engine."""
    _tune_sqlite(engine)
    if getattr(engine, "_residual_lab_schema", None) == SCHEMA_VERSION:
        return engine
    metadata.create_all(engine)  # CREATE TABLE IF NOT EXISTS for each table
    with writing(engine) as conn:
        # FOR UPDATE: replicas starting together on PostgreSQL migrate one after the other (SQLite: BEGIN IMMEDIATE)
        lock = " FOR UPDATE" if engine.dialect.name == "postgresql" else ""
        found = conn.execute(text("SELECT version FROM schema_version" + lock)).scalars().all()
        if not found:
            conn.execute(text("INSERT INTO schema_version (version) VALUES (:v)"), {"v": SCHEMA_VERSION})
        elif max(found) > SCHEMA_VERSION:
            raise RuntimeError(
                f"the classroom database has schema version {max(found)}, newer than this app's {SCHEMA_VERSION}"
            )
        else:
            _migrate(conn, max(found))
    engine._residual_lab_schema = SCHEMA_VERSION
    return engine


def engine_options(url: str) -> dict:
    """create_engine's keyword arguments that bound every wait on the database at timeout_s() seconds."""
    limit = timeout_s()
    options: dict = {"pool_timeout": limit}
    if str(url).startswith("postgresql"):
        ms = int(limit * 1000)
        options["connect_args"] = {
            "connect_timeout": max(1, round(limit)),  # libpq: whole seconds, at least 1
            "options": f"-c statement_timeout={ms} -c lock_timeout={ms}",
        }
    return options


def make_engine(url: str | None = None) -> Engine:
    """An engine for ``url`` (default: :func:`database_url`) with bounded waits (engine_options), prepared."""
    url = url or database_url()
    return prepare(create_engine(url, **engine_options(url)))


def now() -> float:
    return time.time()
