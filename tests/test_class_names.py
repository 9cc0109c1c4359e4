"""Names under abuse (docs/security.md, "Names that look alike"): a removed student cannot come back under a name
that looks the same, names that show nothing are refused by name, look-alikes are told apart on the dashboard,
scripts that need joiners still join, and a huge name is refused from its length alone. SQLite and PostgreSQL.

The look-alikes are the seven a hostile tester used (written here with their code points, independently of the
data file): ZWJ, ZWNJ and CGJ inside, Cyrillic capital A, a Hangul filler and a Braille blank after, a full stop."""

from __future__ import annotations

import unicodedata
from pathlib import Path

import pytest

from lab.classroom import admission, classes, confusables, dashboards, naming, roster, teacher_link
from lab.classroom.refusals import ClassroomError

LOOK_ALIKES = (
    "An\u200dn",  # ZERO WIDTH JOINER
    "An\u200cn",  # ZERO WIDTH NON-JOINER
    "An\u034fn",  # COMBINING GRAPHEME JOINER
    "\u0410nn",  # CYRILLIC CAPITAL LETTER A
    "Ann\u3164",  # HANGUL FILLER
    "Ann\u2800",  # BRAILLE PATTERN BLANK
    "Ann.",
)
INVISIBLE = ("\u3164", "\u2800", "\u034f", "\u3164\u3164", "\u2800 \u3164", "\uffa0", "\u115f")
PERSIAN = "\u0645\u06cc\u200c\u062e\u0648\u0627\u0647\u0645"  # ZWNJ between two letters
HINDI = "\u0915\u094d\u200d\u0937"  # a half form asked for with ZWJ


def start(engine):
    new = classes.create_class(engine, "Period 4")
    classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    return new


def join_key(engine, new) -> str:
    return teacher_link.check_teacher(engine, new.code, new.teacher_token).join_key


def remove_ann(engine, new) -> int:
    admission.join_class(engine, new.code, "Ann", client="xsrf:ann")
    ann = [s for s in dashboards.dashboard(engine, new.code, new.teacher_token).students if s.name == "Ann"]
    assert roster.remove_students(engine, new.code, new.teacher_token, [ann[0].id]) == 1
    return ann[0].id


@pytest.mark.parametrize("name", LOOK_ALIKES, ids=[f"{n!a}" for n in LOOK_ALIKES])
def test_a_removed_student_cannot_come_back_under_a_look_alike(engine, name):
    new = start(engine)
    ann = remove_ann(engine, new)
    with pytest.raises(ClassroomError, match="removed a student named"):  # by the join link: the reason is said
        admission.join_class(engine, new.code, name, client=f"xsrf:fresh-{name!a}", link_key=join_key(engine, new))
    with pytest.raises(ClassroomError, match="No open class has the code"):  # typed: the one refusal of every code
        admission.join_class(engine, new.code, name, client=f"xsrf:typed-{name!a}")
    roster.allow_back(engine, new.code, new.teacher_token, ann)  # Let back in lifts the ban on the look-alikes too
    admission.join_class(engine, new.code, name, client=f"xsrf:back-{name!a}", link_key=join_key(engine, new))


@pytest.mark.parametrize("name", INVISIBLE, ids=[f"{n!a}" for n in INVISIBLE])
def test_names_that_show_nothing_are_refused_by_name(engine, name):
    new = start(engine)
    with pytest.raises(ClassroomError, match="Your name: it shows nothing"):
        admission.join_class(engine, new.code, name, client="xsrf:blank")
    assert not dashboards.dashboard(engine, new.code, new.teacher_token).students


def test_look_alikes_are_numbered_on_the_dashboard(engine):
    new = start(engine)
    for i, name in enumerate(("Ann", "Bob", "\u0410nn", "B0b", "Ann.")):
        admission.join_class(engine, new.code, name, client=f"xsrf:{i}")
    labels = [s.label for s in dashboards.dashboard(engine, new.code, new.teacher_token).students]
    assert labels == ["Ann", "Bob", "\u0410nn (2)", "B0b (2)", "Ann. (3)"]


def test_names_that_need_joiners_still_join_and_differ(engine):
    new = start(engine)
    for i, name in enumerate((PERSIAN, HINDI, "Ann")):
        admission.join_class(engine, new.code, name, client=f"xsrf:{i}")
    labels = [s.label for s in dashboards.dashboard(engine, new.code, new.teacher_token).students]
    assert labels == [PERSIAN, HINDI, "Ann"]  # kept as typed, joiners included; no two alike


def test_name_keys_by_hand():
    ann = naming.name_key("Ann")
    assert all(naming.name_key(n) == ann for n in (*LOOK_ALIKES, "ANN", "a n n", "ann"))
    assert naming.name_key("Anne") != ann and naming.name_key("Ann 2") != ann
    assert naming.name_key("B0b") == naming.name_key("bob")  # DIGIT ZERO's prototype is LATIN CAPITAL LETTER O
    kitab, ktab = "\u0915\u093f\u0924\u093e\u092c", "\u0915\u0924\u093e\u092c"
    assert naming.name_key(kitab) != naming.name_key(ktab)  # a vowel sign (a mark) is kept
    assert naming.name_key("!!") == "!!"  # a name of symbols alone keeps them


def test_a_huge_name_is_refused_from_its_length_alone(monkeypatch):
    class NoWork:  # any per-character work (normalising, splitting by category) would go through here
        def __getattr__(self, name):
            raise AssertionError(f"unicodedata.{name} called on a text over its limit")

    monkeypatch.setattr(naming, "unicodedata", NoWork())
    for check, label in ((naming.check_name, "Your name"), (naming.normalize_code, "Class code")):
        with pytest.raises(ClassroomError, match=f"{label}: 1,048,576 characters; at most"):
            check("a" * 1_048_576)
    with pytest.raises(ClassroomError, match="Student number: 1,048,576 characters; at most 32"):
        naming.check_identifier("a" * 1_048_576)


def test_a_huge_name_never_reaches_the_database(engine, monkeypatch):
    new = start(engine)
    with pytest.raises(ClassroomError, match="Your name: 1,048,576 characters; at most 40"):
        admission.join_class(engine, new.code, "x" * 1_048_576, client="xsrf:huge")


DERIVED = Path("/usr/share/unicode/DerivedCoreProperties.txt")  # Debian's unicode-data


def test_default_ignorables_match_the_unicode_data_file():
    if not DERIVED.exists():
        pytest.skip("Debian's unicode-data is not installed")
    expected = set()
    for line in DERIVED.read_text(encoding="utf-8").splitlines():
        data = line.split("#", 1)[0]
        if "Default_Ignorable_Code_Point" not in data:
            continue
        span = data.split(";")[0].strip()
        low, _, high = span.partition("..")
        expected.update(range(int(low, 16), int(high or low, 16) + 1))
    got = {c for low, high in confusables.DEFAULT_IGNORABLE for c in range(low, high + 1)}
    assert got == expected


def test_the_skeleton_follows_uts39_on_its_own_examples():
    # UTS #39 section 4's own example pairs, and NFD applied around the mapping
    assert confusables.skeleton("paypaI") == confusables.skeleton("paypal")  # CAPITAL I's prototype is small L
    assert confusables.skeleton("\u0455\u0441\u043e\u0440\u0435") == confusables.skeleton("scope")  # Cyrillic
    assert confusables.skeleton("\u00e9") == unicodedata.normalize("NFD", "\u00e9")  # no prototype: NFD only
    assert "0430" in confusables.DATA_FILE.read_text(encoding="utf-8-sig")[:200_000]  # the file is Unicode's own
