"""Who gets into a class (docs/security.md): the teacher's lock, the expected size and its approvals, removal as a
ban, a replaceable join link; no script or address closing the door on others; one refusal for every typed code;
bulk removal by a rule; names with joiners. On SQLite and PostgreSQL (the ``engine`` fixture).

Figures are derived by hand from the documented limits: 120 typed joins per address a minute, 4 joins per browser
session in 10 minutes, 300 wrong codes per address an hour, 10 classes per browser and 60 per address an hour."""

from __future__ import annotations

import re

import pytest
from sqlalchemy import text

from lab.classroom import admission, answers, classes, dashboards, db, limits, naming, roster, teacher_link, versions
from lab.classroom.refusals import ClassroomError, RateLimited, Waiting


@pytest.fixture
def clock(monkeypatch):
    now = [7_000_000.0]
    monkeypatch.setattr(db, "now", lambda: now[0])
    return now


def start(engine):
    new = classes.create_class(engine, "Period 4")
    classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    return new


def key_of(engine, new) -> str:
    return teacher_link.check_teacher(engine, new.code, new.teacher_token).join_key


def words(exc) -> str:
    """A refusal with the code it names blanked: what a guesser could compare between codes."""
    return re.sub(r"code [A-Z2-9]{6}", "code ……", str(exc))


def absent_refusal(engine) -> str:
    with pytest.raises(ClassroomError) as info:
        admission.join_class(engine, "QQQQQQ", "Probe", client="xsrf:probe-absent")
    return words(info.value)


def board(engine, new):
    return dashboards.dashboard(engine, new.code, new.teacher_token)


# --- the teacher controls who gets in -----------------------------------------------------------------------------


def test_a_locked_class_refuses_new_joins_and_keeps_its_students(engine, clock):
    new = start(engine)
    ann = admission.join_class(engine, new.code, "Ann", client="xsrf:ann")
    admission.lock_joins(engine, new.code, new.teacher_token)
    assert teacher_link.check_teacher(engine, new.code, new.teacher_token).joins_locked
    with pytest.raises(ClassroomError, match="is locked by your teacher") as by_link:
        admission.join_class(engine, new.code, "Bob", client="xsrf:bob", link_key=key_of(engine, new))
    assert "private links" in str(by_link.value)
    with pytest.raises(ClassroomError) as typed:
        admission.join_class(engine, new.code, "Bob", client="xsrf:bob2")
    assert words(typed.value) == absent_refusal(engine)  # a typed code is told nothing
    # Ann comes back through her private link, and submits
    activity = answers.student_state(engine, new.code, ann.student_token).activity.id
    answers.submit_prediction(engine, new.code, ann.student_token, activity, ["0.7", "0.3"])
    admission.lock_joins(engine, new.code, new.teacher_token, False)
    assert admission.join_class(engine, new.code, "Bob", client="xsrf:bob").name == "Bob"
    assert [s.name for s in board(engine, new).students] == ["Ann", "Bob"]


def test_joins_beyond_the_expected_size_wait_for_the_teacher(engine, clock):
    new = start(engine)
    assert admission.set_expected_size(engine, new.code, new.teacher_token, 2) == 2
    for name in ("Ann", "Bob"):
        assert not admission.join_class(engine, new.code, name, client=f"xsrf:{name}").waiting
    cat = admission.join_class(engine, new.code, "Cat", client="xsrf:cat")
    dan = admission.join_class(engine, new.code, "Dan", client="xsrf:dan", link_key=key_of(engine, new))
    assert cat.waiting and dan.waiting
    b = board(engine, new)
    assert (b.joined, [s.name for s in b.waiting]) == (2, ["Cat", "Dan"])  # waiting: not counted as joined
    with pytest.raises(Waiting, match="waiting to be let in"):
        answers.student_state(engine, new.code, cat.student_token)
    with pytest.raises(Waiting):
        answers.submit_prediction(engine, new.code, cat.student_token, b.activity.id, ["0.5", "0.5"])
    cat_id = b.waiting[0].id
    assert roster.admit_waiting(engine, new.code, new.teacher_token, [cat_id]) == 1
    assert answers.student_state(engine, new.code, cat.student_token).name == "Cat"
    assert roster.admit_waiting(engine, new.code, new.teacher_token, [cat_id]) == 0  # once only
    dan_id = board(engine, new).waiting[0].id
    assert roster.remove_students(engine, new.code, new.teacher_token, [dan_id]) == 1  # refused: a removal
    b = board(engine, new)
    assert (b.joined, b.waiting, [s.name for s in b.removed]) == (3, (), ["Dan"])
    with engine.connect() as conn:  # seats: Ann, Bob, Cat (Dan never took one)
        assert conn.execute(text("SELECT student_count FROM classes")).scalar_one() == 3
    assert admission.set_expected_size(engine, new.code, new.teacher_token, 0) is None  # no approval any more
    assert not admission.join_class(engine, new.code, "Eve", client="xsrf:eve").waiting
    with pytest.raises(ClassroomError, match="Expected size: 501 students"):
        admission.set_expected_size(engine, new.code, new.teacher_token, 501)


def test_a_removed_student_stays_out_with_a_fresh_browser_until_let_back_in(engine, clock):
    new = start(engine)
    bob = admission.join_class(engine, new.code, "Bob Lee", client="xsrf:bob")
    bob_id = board(engine, new).students[0].id
    roster.remove_student(engine, new.code, new.teacher_token, bob_id)
    key = key_of(engine, new)
    # a new browser session (cookie dropped, private window, another phone), same name: still out
    with pytest.raises(ClassroomError, match="removed a student named bob lee"):
        admission.join_class(engine, new.code, "bob  lee", client="xsrf:fresh", link_key=key)
    with pytest.raises(ClassroomError) as typed:
        admission.join_class(engine, new.code, "BOB LEE", client="xsrf:fresh2")
    assert words(typed.value) == absent_refusal(engine)
    with pytest.raises(ClassroomError, match="removed you"):  # his own browser session, any name
        admission.join_class(engine, new.code, "Robert", client="xsrf:bob", link_key=key)
    roster.allow_back(engine, new.code, new.teacher_token, bob_id)
    assert answers.student_state(engine, new.code, bob.student_token).name == "Bob Lee"
    assert admission.join_class(engine, new.code, "Bob Lee", client="xsrf:fresh", link_key=key).name == "Bob Lee"


def test_new_join_link_stops_the_old_qr_code(engine, clock):
    new = start(engine)
    old = key_of(engine, new)
    assert admission.join_class(engine, new.code, "Ann", client="xsrf:a", link_key=old).name == "Ann"
    fresh = admission.new_join_link(engine, new.code, new.teacher_token)
    assert fresh != old and key_of(engine, new) == fresh
    with pytest.raises(ClassroomError) as info:
        admission.join_class(engine, new.code, "Bob", client="xsrf:b", link_key=old)
    assert words(info.value) == absent_refusal(engine)
    assert admission.join_class(engine, new.code, "Bob", client="xsrf:b", link_key=fresh).name == "Bob"
    other = start(engine)
    assert key_of(engine, other) not in (old, fresh)  # per class


# --- no one closes the door on others -----------------------------------------------------------------------------


def test_joins_from_one_address_stop_at_120_a_minute_by_code_and_by_link(engine, clock):
    new = start(engine)
    school = "198.51.100.20"
    for i in range(120):  # 120 fake joins in a moment, each from a fresh browser session, one address
        admission.join_class(engine, new.code, f"Bot {i}", client=f"xsrf:bot{i}", address=school)
    with pytest.raises(RateLimited, match="at most 120 a minute"):
        admission.join_class(engine, new.code, "Bot 120", client="xsrf:bot120", address=school)
    # the join link is no way round it (it would let one address fill the class): it waits out the minute too
    with pytest.raises(RateLimited, match="joins from this network address \\(at most 120 a minute\\): wait 60 s\\.$"):
        admission.join_class(engine, new.code, "Ann", client="xsrf:ann", address=school, link_key=key_of(engine, new))
    # a classmate at another address is unaffected, by code and by link
    assert admission.join_class(engine, new.code, "Bea", client="xsrf:bea", address="192.0.2.9").name == "Bea"
    assert admission.join_class(
        engine, new.code, "Cy", client="xsrf:cy", address="192.0.2.10", link_key=key_of(engine, new)
    ).name == "Cy"
    clock[0] += 60
    joined = admission.join_class(
        engine, new.code, "Ann", client="xsrf:ann", address=school, link_key=key_of(engine, new)
    )
    assert joined.name == "Ann" and not joined.waiting
    assert board(engine, new).joined == 123


def test_one_address_cannot_fill_a_class_by_its_join_link(engine, clock):
    new = start(engine)
    link = key_of(engine, new)
    for i in range(120):
        admission.join_class(engine, new.code, f"Bot {i}", client=f"xsrf:bot{i}", address="198.51.100.7", link_key=link)
    with pytest.raises(RateLimited, match="at most 120 a minute"):
        admission.join_class(engine, new.code, "Bot 120", client="xsrf:bot120", address="198.51.100.7", link_key=link)
    assert board(engine, new).joined == 120  # 500 seats: the flood holds 120 a minute, not the whole class in 15 s


def test_wrong_codes_from_one_address_stop_at_300_an_hour_and_the_link_still_admits(engine, clock, monkeypatch):
    new = start(engine)
    school = "203.0.113.30"
    for i in range(300):
        with pytest.raises(ClassroomError, match="No open class"):
            admission.join_class(engine, "QQQQQQ", "Eve", client=f"xsrf:eve{i}", address=school)
    with pytest.raises(RateLimited, match="wrong class codes from this network address \\(at most 300 an hour\\)"):
        admission.join_class(engine, new.code, "Ann", client="xsrf:ann", address=school)
    with engine.connect() as conn:  # a class's budget (88,750) is far from spent: other addresses type codes
        assert limits.guesses_against(conn, clock[0], clock[0]) == 300
    assert admission.join_class(engine, new.code, "Ann", client="xsrf:ann", address="192.0.2.9").name == "Ann"
    assert admission.join_class(
        engine, new.code, "Bea", client="xsrf:bea", address=school, link_key=key_of(engine, new)
    )
    clock[0] += 3600
    assert admission.join_class(engine, new.code, "Cat", client="xsrf:cat", address=school).name == "Cat"


def test_starting_classes_is_limited_per_browser_and_per_address(engine, clock):
    for _ in range(10):
        classes.create_class(engine, client="xsrf:script", address="192.0.2.50")
    with pytest.raises(RateLimited, match="from this browser \\(at most 10 an hour\\): wait 3600 s") as info:
        classes.create_class(engine, client="xsrf:script", address="192.0.2.50")
    assert "teacher link" in str(info.value)
    for i in range(50):  # other browsers at that address: 60 in all
        classes.create_class(engine, client=f"xsrf:t{i}", address="192.0.2.50")
    with pytest.raises(RateLimited, match="from this network address \\(at most 60 an hour\\)"):
        classes.create_class(engine, client="xsrf:new", address="192.0.2.50")
    classes.create_class(engine, client="xsrf:new", address="192.0.2.51")  # another school
    clock[0] += 3600
    classes.create_class(engine, client="xsrf:script", address="192.0.2.50")
    with engine.connect() as conn:
        assert conn.execute(text("SELECT COUNT(*) FROM classes")).scalar_one() == 62


# --- uniform answers and honest limits ----------------------------------------------------------------------------


def test_every_refusal_of_a_typed_code_reads_the_same(engine, clock):
    absent = absent_refusal(engine)
    locked, full, ended = start(engine), start(engine), start(engine)
    admission.lock_joins(engine, locked.code, locked.teacher_token)
    with engine.begin() as conn:
        conn.execute(text("UPDATE classes SET student_count = 500 WHERE code = :c"), {"c": full.code})
    classes.end_class(engine, ended.code, ended.teacher_token)
    for klass in (locked, full, ended):
        with pytest.raises(ClassroomError) as info:
            admission.join_class(engine, klass.code, "Probe", client=f"xsrf:{klass.code}")
        assert not isinstance(info.value, RateLimited) and words(info.value) == absent
    # a browser's join limit is checked before the code is looked up: the same for a real code and an absent one
    real = start(engine)
    for i in range(4):
        admission.join_class(engine, real.code, f"S{i}", client="xsrf:four")
    said = []
    for code in (real.code, "QQQQQQ"):
        with pytest.raises(RateLimited) as info:
            admission.join_class(engine, code, "S4", client="xsrf:four")
        said.append(words(info.value))
    assert said[0] == said[1] and "at most 4 in 10 minutes" in said[0]


def test_waits_never_read_zero(engine, clock):
    assert limits.wait_words(0.2) == "1 s" and limits.wait_words(2.0) == "2 s" and limits.wait_words(59.01) == "60 s"
    assert (limits.window_words(60), limits.window_words(600), limits.window_words(3600)) == (
        "a minute",
        "in 10 minutes",
        "an hour",
    )


def test_bulk_removal_by_a_rule_the_teacher_sees(engine, clock):
    new = start(engine)
    activity = board(engine, new).activity.id
    tokens = {}
    for name, at in (("Ann", 0), ("Bot", 10), ("ann", 20), ("Bot", 100), ("Cy", 110)):
        clock[0] = 7_000_000.0 + at
        tokens.setdefault(name, []).append(admission.join_class(engine, new.code, name).student_token)
    clock[0] = 7_000_120.0
    answers.submit_prediction(engine, new.code, tokens["Ann"][0], activity, ["0.7", "0.3"])
    answers.submit_prediction(engine, new.code, tokens["Bot"][1], activity, ["0.1", "0.9"])  # the late bot submitted
    quiet = roster.bulk_match(engine, new.code, new.teacher_token, "no-submission")
    assert quiet.labels == ("Bot", "ann (2)", "Cy") and quiet.kept == ()  # "ann" looks like "Ann": numbered
    recent = roster.bulk_match(engine, new.code, new.teacher_token, "joined-recently", seconds=30)
    assert recent.labels == ("Cy",) and recent.kept == ("Bot (2)",)  # joined 20 s and 10 s ago; Bot (2) submitted
    recent_all = roster.bulk_match(engine, new.code, new.teacher_token, "joined-recently", 30, include_submitted=True)
    assert recent_all.labels == ("Bot (2)", "Cy")
    twins = roster.bulk_match(engine, new.code, new.teacher_token, "duplicate-name")
    assert twins.labels == ("ann (2)",) and twins.kept == ("Bot (2)",)  # the first of each name stays
    assert roster.remove_students(engine, new.code, new.teacher_token, recent_all.ids) == 2
    assert [s.label for s in board(engine, new).students] == ["Ann", "Bot", "ann (2)"]


def test_names_with_joiners_are_accepted_and_overrides_refused():
    persian = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"  # "mi-khaham": ZWNJ between two letters
    hindi = "\u0915\u094d\u200d\u0937"  # क्‍ष: a half form asked for with ZWJ
    family = "\U0001f468\u200d\U0001f469\u200d\U0001f467"  # one emoji: man, ZWJ, woman, ZWJ, girl
    for name in (persian, hindi, family, "Ann " + family):
        assert naming.check_name(name) == name
    for bad in ("Ann\u202e", "\u2066Ann", "Ann\u0007", "Ann\u200b", "\u200dAnn", "Ann\u200c"):
        with pytest.raises(ClassroomError, match="control character"):
            naming.check_name(bad)


# --- the dashboard and the student's page (AppTest) ---------------------------------------------------------------


def test_the_dashboard_locks_sets_the_size_and_lets_the_waiting_in(data):
    from pagetest import open_linked_page, predictors

    page = "lab/views/live_class/classroom.py"
    new = start(data)
    at = open_linked_page(page, {"code": new.code, "teacher": new.teacher_token})
    at.button(key="cls_lock_joins").click().run()
    assert not at.exception and teacher_link.check_teacher(data, new.code, new.teacher_token).joins_locked
    at.button(key="cls_open_joins").click().run()
    at.number_input(key="cls_expected_size").set_value(1)
    at.button(key="FormSubmitter:cls_size_form-Set the expected size").click().run()
    assert teacher_link.check_teacher(data, new.code, new.teacher_token).expected_size == 1
    admission.join_class(data, new.code, "Ann")
    bob = admission.join_class(data, new.code, "Bob")
    assert bob.waiting
    student = open_linked_page(page, {"code": new.code, "student": bob.student_token})
    assert any("waiting to be let in" in i.value for i in student.info) and not student.exception
    at.run()
    assert any("Asking to join (1)" in m.value for m in at.markdown)
    at.button(key=f"cls_admit_{board(data, new).waiting[0].id}").click().run()
    assert [s.name for s in board(data, new).students] == ["Ann", "Bob"]
    student.run()
    assert not any("waiting to be let in" in i.value for i in student.info)
    assert "cls_bars_1" in predictors(student)  # let in: the prediction's bars and boxes are drawn


def test_the_projector_says_the_database_cannot_be_reached_instead_of_an_exception(data, monkeypatch):
    from pagetest import open_linked_page

    new = start(data)
    key = versions.stored_class_version(data, new.code).display_key
    monkeypatch.setenv("RESIDUAL_LAB_DATABASE_URL", "sqlite:////nonexistent-folder-of-the-test/classroom.db")
    at = open_linked_page("lab/views/live_class/projector.py", {"code": new.code, "display": key})
    assert not at.exception
    assert any("class database cannot be reached" in w.value for w in at.warning)
