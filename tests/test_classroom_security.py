"""A class behind one address, guessers, floods, removals, bearer links and names: the store on SQLite and on
PostgreSQL (the ``engine`` fixture), and the address/browser helpers of lab.classroom.keys.

Figures are derived by hand: the code space is 31^6 = 887,503,681 codes; a class's budget is
887,503,681 // 10,000 = 88,750 units, each wrong code costing one unit."""

from __future__ import annotations

import csv
import hashlib
import hmac
import io
import re

import pytest
from sqlalchemy import create_engine, text

from lab.classroom import (
    admission,
    answers,
    classes,
    dashboards,
    db,
    export,
    keys,
    limits,
    naming,
    records,
    roster,
    teacher_link,
    versions,
)
from lab.classroom.db import SCHEMA_VERSION, make_engine
from lab.classroom.refusals import ClassroomError, RateLimited


@pytest.fixture
def clock(monkeypatch):
    now = [5_000_000.0]
    monkeypatch.setattr(db, "now", lambda: now[0])
    return now


def start(engine, name="Period 3"):
    new = classes.create_class(engine, name)
    classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    return new


def wrong(code: str) -> str:
    """Another code of the alphabet (every character shifted by one)."""
    a = naming.CODE_ALPHABET
    return "".join(a[(a.index(c) + 1) % len(a)] for c in code)


def test_the_numbers_in_the_docs():
    assert naming.CODE_SPACE == 31**6 == 887_503_681
    assert limits.WRONG_CODE_RISK_BUDGET == 88_750
    # a class's chance to be opened by guessing its typed code, over its day: below 1 in 10,000 (plus a hair)
    assert 88_750 / (31**6 - 88_750) < 1.0001e-4
    # one address spends at most 300 an hour: a class's budget needs 13 addresses working all day
    assert limits.WRONG_CODES_PER_ADDRESS * 24 == 7_200 and -(-88_750 // 7_200) == 13


# --- wrong codes: per browser session, and a server-wide budget -----------------------------------------------


def test_one_browsers_wrong_codes_never_delay_another_browser_at_the_same_address(engine, clock):
    new = start(engine)
    for _ in range(limits.FREE_WRONG_CODES):
        with pytest.raises(ClassroomError, match="No open class"):
            admission.join_class(engine, wrong(new.code), "Eve", client="xsrf:eve", address="203.0.113.7")
    with pytest.raises(RateLimited, match="from this browser: wait 2 s"):
        admission.join_class(engine, wrong(new.code), "Eve", client="xsrf:eve", address="203.0.113.7")
    # the whole class behind the same address joins at once, each in its own browser session
    for i in range(30):
        admission.join_class(engine, new.code, f"S{i}", client=f"xsrf:{i}", address="203.0.113.7")
    assert dashboards.dashboard(engine, new.code, new.teacher_token).joined == 30


def uniform(exc) -> str:
    """A refusal's words with the code it names taken out (what a guesser could compare across codes)."""
    return re.sub(r"code [A-Z2-9]{6}", "code ……", str(exc))


def test_a_class_budget_is_spent_by_wrong_codes_alone_and_its_join_link_still_admits(engine, clock, monkeypatch):
    monkeypatch.setattr(limits, "WRONG_CODE_RISK_BUDGET", 12)
    new = start(engine)
    for _ in range(30):  # a script starts many classes: that spends no class's budget
        classes.create_class(engine)
    with engine.connect() as conn:
        assert limits.wrong_code_risk(conn, clock[0]) == 0
    for i in range(11):  # eleven browsers, one wrong code each: one unit each, nobody slowed per browser
        with pytest.raises(ClassroomError, match="No open class"):
            admission.join_class(engine, "QQQQQQ", "Eve", client=f"xsrf:guess{i}")
    assert admission.join_class(engine, new.code, "Ann", client="xsrf:ann").name == "Ann"  # 11 < 12: typed still admits
    with pytest.raises(ClassroomError) as absent:
        admission.join_class(engine, "QQQQQQ", "Eve", client="xsrf:guess11")  # the 12th unit
    with engine.connect() as conn:
        assert limits.wrong_code_risk(conn, clock[0]) == 12
        assert limits.guesses_against(conn, clock[0] - 1, clock[0]) == 12
    # spent: the right code, typed, is refused in the very words of a code no class has
    with pytest.raises(ClassroomError) as present:
        admission.join_class(engine, new.code, "Bob", client="xsrf:bob")
    assert not isinstance(present.value, RateLimited)
    assert uniform(present.value) == uniform(absent.value) and "join link" in str(present.value)
    # the join link (its key is in the link and the QR code) is no guess: it admits
    key = teacher_link.check_teacher(engine, new.code, new.teacher_token).join_key
    # not from the teacher token
    assert key == keys.join_key(versions.stored_class_version(engine, new.code).display_key)
    assert admission.join_class(engine, new.code, "Bob", client="xsrf:bob", link_key=key).name == "Bob"
    other = classes.create_class(engine)
    with pytest.raises(ClassroomError, match="No open class"):  # another class's key is no key for this one
        admission.join_class(engine, other.code, "Cat", client="xsrf:cat", link_key=key)
    clock[0] += 3600  # a class started in a later hour has a budget of its own
    later = classes.create_class(engine)
    assert admission.join_class(engine, later.code, "Dan", client="xsrf:dan").name == "Dan"
    with pytest.raises(ClassroomError, match="No open class"):  # the first class's budget stays spent
        admission.join_class(engine, new.code, "Eli", client="xsrf:eli")
    clock[0] += 24 * 3600  # units are kept for their hour and the 24 after it
    with engine.connect() as conn:
        assert limits.wrong_code_risk(conn, clock[0]) == 0


def test_a_malformed_code_spends_no_budget(engine, clock):
    start(engine)
    with pytest.raises(ClassroomError, match="never appears"):
        admission.join_class(engine, "ABCDE0", "Ann", client="xsrf:a")
    with engine.connect() as conn:
        assert limits.wrong_code_risk(conn, clock[0]) == 0


def test_the_join_link_skips_the_browsers_slowing(engine, clock):
    new = start(engine)
    for _ in range(limits.FREE_WRONG_CODES):
        with pytest.raises(ClassroomError):
            admission.join_class(engine, wrong(new.code), "Ann", client="xsrf:ann")
    with pytest.raises(RateLimited):
        admission.join_class(engine, new.code, "Ann", client="xsrf:ann")
    key = teacher_link.check_teacher(engine, new.code, new.teacher_token).join_key
    assert admission.join_class(engine, new.code, "Ann", client="xsrf:ann", link_key=key).name == "Ann"


# --- join floods ----------------------------------------------------------------------------------------------


def test_joins_are_limited_per_browser_session_and_per_address(engine, clock):
    new = start(engine)
    for i in range(limits.JOINS_PER_BROWSER):
        admission.join_class(engine, new.code, f"Fake {i}", client="xsrf:script")
    with pytest.raises(RateLimited, match="from this browser \\(at most 4 in 10 minutes\\): wait 600 s"):
        admission.join_class(engine, new.code, "Fake 4", client="xsrf:script")
    clock[0] += limits.JOIN_WINDOW_BROWSER_S
    admission.join_class(engine, new.code, "Fake 4", client="xsrf:script")
    for i in range(limits.JOINS_PER_ADDRESS):  # a fresh browser session each time, one address
        admission.join_class(engine, new.code, f"S{i}", client=f"xsrf:s{i}", address="198.51.100.1")
    with pytest.raises(RateLimited, match="this network address \\(at most 120 a minute\\): wait 60 s"):
        admission.join_class(engine, new.code, "S120", client="xsrf:s120", address="198.51.100.1")
    admission.join_class(engine, new.code, "Elsewhere", client="xsrf:else", address="198.51.100.2")
    clock[0] += limits.JOIN_WINDOW_ADDRESS_S
    admission.join_class(engine, new.code, "S120", client="xsrf:s120", address="198.51.100.1")
    assert dashboards.dashboard(engine, new.code, new.teacher_token).joined == 5 + 120 + 2


# --- removal --------------------------------------------------------------------------------------------------


def test_removed_students_cannot_rejoin_from_that_browser_until_let_back_in(engine, clock):
    new = start(engine)
    bob = admission.join_class(engine, new.code, "Bob", client="xsrf:bob")
    ann = admission.join_class(engine, new.code, "Ann", client="xsrf:ann")
    activity = answers.student_state(engine, new.code, bob.student_token).activity.id
    answers.submit_prediction(engine, new.code, bob.student_token, activity, ["0.5", "0.5"])
    bob_id = next(s.id for s in dashboards.dashboard(engine, new.code, new.teacher_token).students if s.name == "Bob")
    roster.remove_student(engine, new.code, new.teacher_token, bob_id)
    with pytest.raises(ClassroomError, match="removed you"):
        admission.join_class(engine, new.code, "Bob", client="xsrf:bob")  # a reload keeps the browser session
    with pytest.raises(ClassroomError, match="removed you"):
        answers.student_state(engine, new.code, bob.student_token)  # and his link
    board = dashboards.dashboard(engine, new.code, new.teacher_token)
    assert [s.name for s in board.students] == ["Ann"] and [s.name for s in board.removed] == ["Bob"]
    rows = list(csv.DictReader(io.StringIO(export.class_results_csv(engine, new.code, new.teacher_token))))
    assert [(r["student"], r["removed"][:8]) for r in rows] == [("Bob", "removed ")]
    roster.allow_back(engine, new.code, new.teacher_token, bob_id)
    assert answers.student_state(engine, new.code, bob.student_token).prediction is not None  # his answers kept
    assert admission.join_class(engine, new.code, "Bob", client="xsrf:bob").name == "Bob"
    with pytest.raises(ClassroomError, match="was not removed"):
        roster.allow_back(engine, new.code, new.teacher_token, bob_id)
    assert answers.student_state(engine, new.code, ann.student_token).name == "Ann"


def test_remove_everyone_who_has_not_submitted(engine, clock):
    new = start(engine)
    tokens = [admission.join_class(engine, new.code, f"S{i}").student_token for i in range(10)]
    activity = answers.student_state(engine, new.code, tokens[0]).activity.id
    for t in tokens[:3]:
        answers.submit_prediction(engine, new.code, t, activity, ["0.7", "0.3"])
    version = versions.stored_class_version(engine, new.code).version
    assert roster.remove_not_submitted(engine, new.code, new.teacher_token) == 7
    board = dashboards.dashboard(engine, new.code, new.teacher_token)
    assert (board.joined, board.submitted, len(board.removed)) == (3, 3, 7)
    assert versions.stored_class_version(engine, new.code).version == version + 1  # one bump for all seven
    assert roster.remove_not_submitted(engine, new.code, new.teacher_token) == 0
    with engine.connect() as conn:
        assert conn.execute(text("SELECT student_count FROM classes")).scalar_one() == 3


# --- bearer links ---------------------------------------------------------------------------------------------


def test_after_end_class_the_student_link_is_read_only(engine, clock):
    new = start(engine)
    ann = admission.join_class(engine, new.code, "Ann").student_token
    activity = answers.student_state(engine, new.code, ann).activity.id
    answers.submit_prediction(engine, new.code, ann, activity, ["0.75", "0.25"])
    classes.end_class(engine, new.code, new.teacher_token)
    state = answers.student_state(engine, new.code, ann)
    assert not state.open and state.prediction is not None
    with pytest.raises(ClassroomError, match="has ended: nothing can change"):
        answers.submit_prediction(engine, new.code, ann, activity, ["0.1", "0.9"])
    assert answers.student_state(engine, new.code, ann).prediction == state.prediction
    for action in (classes.reveal, classes.lock, classes.next_activity, roster.remove_not_submitted):
        with pytest.raises(ClassroomError, match="has ended"):
            action(engine, new.code, new.teacher_token)


def test_nothing_stored_is_a_plain_hash_of_an_address_or_browser(engine, clock, monkeypatch):
    monkeypatch.setenv(keys.SECRET_ENV, "server secret one")
    new = start(engine)
    address, browser = "192.0.2.44", "xsrf:00ff"
    admission.join_class(engine, new.code, "Ann", client=browser, address=address)
    with pytest.raises(ClassroomError):
        admission.join_class(engine, "QQQQQQ", "Ann", client=browser, address=address)
    with engine.connect() as conn:
        stored = [
            str(v)
            for table in ("join_failures", "rate_counters", "students")
            for row in conn.execute(text(f"SELECT * FROM {table}"))
            for v in row
        ]
    dump = " ".join(stored)
    for value in (address, browser):
        assert value not in dump
        for plain in (value, f"client:{value}", f"address:{value}"):
            assert hashlib.sha256(plain.encode()).hexdigest() not in dump
    expected = hmac.new(b"server secret one", b"address\x00" + address.encode(), hashlib.sha256).hexdigest()
    assert f"joins-address:{expected}" in dump  # a keyed HMAC under the server's secret
    monkeypatch.setenv(keys.SECRET_ENV, "another secret")
    assert keys.keyed("address", address) != expected


def test_counters_expire_as_documented(engine, clock):
    new = start(engine)
    admission.join_class(engine, new.code, "Ann", client="xsrf:a", address="192.0.2.1")
    with pytest.raises(ClassroomError):
        admission.join_class(engine, "QQQQQQ", "Ann", client="xsrf:a")

    def count(table):
        with engine.connect() as conn:
            return conn.execute(text(f"SELECT COUNT(*) FROM {table}")).scalar_one()

    assert (count("join_failures"), count("rate_counters")) == (1, 3)  # browser, address, the server's budget
    classes.purge_old(engine)
    assert (count("join_failures"), count("rate_counters")) == (1, 3)
    clock[0] += limits.FORGET_WRONG_CODES_S + 1  # 10 minutes after the last wrong code; join windows ended
    classes.purge_old(engine)
    assert (count("join_failures"), count("rate_counters")) == (0, 1)
    clock[0] += 25 * 3600  # the budget's hour and the 24 after it
    classes.purge_old(engine)
    assert count("rate_counters") == 0


def test_a_class_past_30_days_is_gone_even_before_the_purge(engine, clock):
    new = start(engine)
    ann = admission.join_class(engine, new.code, "Ann").student_token
    clock[0] += records.KEEP_CLASS_S + 1
    with pytest.raises(ClassroomError, match="teacher link does not open a class"):
        teacher_link.check_teacher(engine, new.code, new.teacher_token)
    with pytest.raises(ClassroomError, match="teacher link does not open a class"):
        export.class_results_csv(engine, new.code, new.teacher_token)
    with pytest.raises(ClassroomError, match="student link is not valid"):
        answers.student_state(engine, new.code, ann)


# --- names ----------------------------------------------------------------------------------------------------


def test_names_that_would_overlap_a_row_are_refused():
    assert naming.check_name("Nguyễn Thị Ánh") == "Nguyễn Thị Ánh"
    assert naming.check_name("e\u0301" * 40) == "é" * 40  # NFC: forty letters, not eighty code points
    with pytest.raises(ClassroomError, match="more than 2 accents or marks on one letter"):
        naming.check_name("Z" + "\u0301" * 39)
    with pytest.raises(ClassroomError, match="more than 2 accents"):
        naming.check_name("q\u0308\u0301\u0323")  # three marks, no precomposed form
    assert naming.check_name("\ufdfd" * 5) == "\ufdfd" * 5  # 5 x 8 = 40
    with pytest.raises(ClassroomError, match="as wide as 48 letters"):
        naming.check_name("\ufdfd" * 6)
    assert naming.check_name("李" * 20) == "李" * 20
    with pytest.raises(ClassroomError, match="as wide as 42 letters"):
        naming.check_name("李" * 21)
    with pytest.raises(ClassroomError, match="control character"):
        naming.check_name("Ann\u202e")  # right-to-left override


def test_duplicate_names_are_told_apart_on_the_dashboard(engine, clock):
    new = start(engine)
    for name in ("Ann", "Bob", "Ann", "Ann (2)", "Ann"):
        admission.join_class(engine, new.code, name)
    labels = [s.label for s in dashboards.dashboard(engine, new.code, new.teacher_token).students]
    # the second Ann cannot be "Ann (2)": someone typed that name
    assert labels == ["Ann", "Bob", "Ann (3)", "Ann (2)", "Ann (4)"]
    assert naming.distinct_labels(["Ann", "Ann", "Ann (2)", "Ann (2)"]) == ["Ann", "Ann (3)", "Ann (2)", "Ann (2) (2)"]


# --- schema ---------------------------------------------------------------------------------------------------


def test_a_version_1_database_is_migrated(tmp_path):
    url = f"sqlite:///{tmp_path / 'v1.db'}"
    old = create_engine(url)
    with old.begin() as conn:  # the tables of version 1 that change, as version 1 made them
        conn.execute(text("CREATE TABLE schema_version (version INTEGER NOT NULL)"))
        conn.execute(text("INSERT INTO schema_version VALUES (1)"))
        conn.execute(
            text(
                "CREATE TABLE students (id INTEGER PRIMARY KEY AUTOINCREMENT, class_id INTEGER NOT NULL, "
                "token_hash TEXT NOT NULL UNIQUE, name TEXT NOT NULL, joined_at FLOAT NOT NULL, removed_at FLOAT, "
                "rate_start FLOAT NOT NULL DEFAULT 0, rate_count INTEGER NOT NULL DEFAULT 0)"
            )
        )
        conn.execute(
            text("CREATE TABLE join_failures (client_hash TEXT PRIMARY KEY, failures INTEGER NOT NULL, last_at FLOAT)")
        )
        conn.execute(text("INSERT INTO join_failures VALUES (:h, 3, 1.0)"), {"h": hashlib.sha256(b"x").hexdigest()})
    old.dispose()
    engine = make_engine(url)
    with engine.connect() as conn:
        assert conn.execute(text("SELECT version FROM schema_version")).scalars().all() == [SCHEMA_VERSION]
        assert conn.execute(text("SELECT COUNT(*) FROM join_failures")).scalar_one() == 0
        assert "browser_hash" in [r[1] for r in conn.exec_driver_sql("PRAGMA table_info(students)")]
    engine.dispose()


# --- who is asking ---------------------------------------------------------------------------------------------


def test_x_forwarded_for_counts_only_from_a_trusted_proxy():
    proxies = keys.trusted_proxies("127.0.0.1, ::1, 10.1.0.0/16, not-an-address")
    assert len(proxies) == 3
    # no proxy in between: a client's own header changes nothing
    assert keys.client_address("198.51.100.9", "1.2.3.4", proxies) == "198.51.100.9"
    assert keys.client_address("127.0.0.1", "1.2.3.4", ()) == "127.0.0.1"  # nothing trusted by default
    # through the proxy: what it appended, the rightmost entry; forged entries to its left are ignored
    assert keys.client_address("127.0.0.1", "6.6.6.6, 203.0.113.5", proxies) == "203.0.113.5"
    assert keys.client_address("127.0.0.1", "203.0.113.5, 10.1.2.3", proxies) == "203.0.113.5"  # two proxies
    assert keys.client_address("127.0.0.1", "junk, 203.0.113.5", proxies) == "203.0.113.5"
    assert keys.client_address("127.0.0.1", "203.0.113.5, junk", proxies) == "127.0.0.1"  # unreadable: no proof
    assert keys.client_address("::1", "2001:db8::7", proxies) == "2001:db8::7"
    assert keys.client_address("127.0.0.1", "", proxies) == "127.0.0.1"


def test_the_xsrf_token_is_the_same_whatever_the_mask():
    token = bytes(range(16))

    def cookie(mask: bytes) -> str:
        masked = bytes(b ^ mask[i % 4] for i, b in enumerate(token))
        return f"2|{mask.hex()}|{masked.hex()}|1700000000"

    assert keys.xsrf_token(cookie(b"\x01\x02\x03\x04")) == keys.xsrf_token(cookie(b"\xff\x00\xaa\x55")) == token.hex()
    for bad in ("", None, "1|x", "2|zz|00|1", "2|01020304|00|1"):
        assert keys.xsrf_token(bad) == ""
