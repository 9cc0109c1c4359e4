"""Names: class codes, and people's names as a row shows them (width, sameness, labels)."""

from __future__ import annotations

import functools
import secrets
import unicodedata

from lab.classroom.confusables import BLANKS, ignorable, shows_nothing, skeleton
from lab.classroom.refusals import ClassroomError
from lab.core.errors import said

# the labels a refusal names its box by (said, so a page says them in its language)
CODE_LABEL = said("Class code")
NAME_LABEL = said("Your name")
IDENTIFIER_LABEL = said("Student number")
CLASS_NAME_LABEL = said("Class name")
ANONYMOUS_LABEL = said("Anonymous joining")

CODE_ALPHABET = "ABCDEFGHJKMNPQRSTUVWXYZ23456789"  # no 0/O, 1/I/L
CODE_LENGTH = 6
CODE_SPACE = len(CODE_ALPHABET) ** CODE_LENGTH
MAX_NAME = 40
MAX_CLASS_NAME = 80
MAX_MARKS_PER_LETTER = 2  # combining marks on one character (Vietnamese needs 2); more stack into the next row
WIDE_CHARACTER_WIDTH = 2  # East Asian wide and full-width characters take two columns
HEAVY_CHARACTER_WIDTH = 8  # ligatures drawn as one very wide glyph (U+FDFD is a whole phrase)
_HEAVY_RANGES = ((0xFDF0, 0xFDFF), (0x2E3A, 0x2E3B), (0xA9C1, 0xA9CD), (0x12000, 0x1254F), (0x13000, 0x1345F))
JOINERS = frozenset("\u200c\u200d")  # ZERO WIDTH NON-JOINER, ZERO WIDTH JOINER
# A text longer than this many times its limit is refused from its length alone, before any work per character (a
# name's limit counts columns, and spaces collapse, so a typed name may hold a few more characters than its limit).
RAW_SLACK = 4


def new_class_code() -> str:
    """A random class code (the caller checks that no class has it yet)."""
    return "".join(secrets.choice(CODE_ALPHABET) for _ in range(CODE_LENGTH))


def bounded(label: str, value, most: int) -> str:
    """``value`` as text, refused by its length alone when it is longer than RAW_SLACK times ``most`` characters:
    the one check a text from a browser meets before anything reads it character by character."""
    text_ = value if isinstance(value, str) else str(value)
    if len(text_) > most * RAW_SLACK:
        raise ClassroomError(
            said("{label}: {count} characters; at most {most}.", label=label, count=f"{len(text_):,}", most=most)
        )
    return text_


def normalize_code(text_: str) -> str:
    """A typed class code: case, spaces and dashes do not matter; characters outside the alphabet are named."""
    code = "".join(bounded(CODE_LABEL, text_, CODE_LENGTH).split()).replace("-", "").upper()
    if not code:
        raise ClassroomError(said("Class code: type the 6-character code your teacher shows."))
    bad = next((ch for ch in code if ch not in CODE_ALPHABET), None)
    if bad is not None:
        raise ClassroomError(said(
            "Class code: {character} never appears in a class code (codes use the letters A–Z except I, L and O, "
            "and the digits 2–9).", character=repr(bad),
        ))
    if len(code) != CODE_LENGTH:
        raise ClassroomError(said(
            "Class code: {count} characters; a class code has {length}.", count=len(code), length=CODE_LENGTH
        ))
    return code


def _width(ch: str) -> int:
    if ch in JOINERS:
        return 0
    code = ord(ch)
    if any(low <= code <= high for low, high in _HEAVY_RANGES):
        return HEAVY_CHARACTER_WIDTH
    return WIDE_CHARACTER_WIDTH if unicodedata.east_asian_width(ch) in ("W", "F") else 1


def _check_characters(label: str, cleaned: str) -> None:
    """Refuse control and format characters (Cc, Cf: bidi overrides, zero-width spaces, ...), except the joiners
    that Persian, Hindi and emoji sequences need between two visible characters, and stacks of marks."""
    if (
        any(not ch.isprintable() and ch not in JOINERS for ch in cleaned)
        or cleaned[:1] in JOINERS
        or (cleaned[-1:] in JOINERS)
    ):
        raise ClassroomError(
            said("{label}: contains a control character; use letters, digits and punctuation.", label=label)
        )
    marks = 0
    for ch in cleaned:
        marks = marks + 1 if unicodedata.combining(ch) or unicodedata.category(ch) in ("Mn", "Me") else 0
        if marks > MAX_MARKS_PER_LETTER:
            raise ClassroomError(said(
                "{label}: more than {most} accents or marks on one letter; type it as it is written.",
                label=label, most=MAX_MARKS_PER_LETTER,
            ))


def check_text(label: str, value: str, most: int) -> str:
    """A name as shown in a row: spaces collapsed, NFC (so "e" + accent is one character), no control or format
    characters, at most MAX_MARKS_PER_LETTER combining marks on a character, and at most ``most`` columns
    wide, where a combining mark counts one, a wide character two and a very wide ligature eight: so no name is
    taller or much wider than a row of ``most`` letters."""
    text_ = bounded(label, value, most)
    cleaned = unicodedata.normalize("NFC", " ".join(text_.split()))
    _check_characters(label, cleaned)
    width = sum(_width(ch) for ch in cleaned)
    if width > most and width == len(cleaned):
        raise ClassroomError(said("{label}: {count} characters; at most {most}.", label=label, count=width, most=most))
    if width > most:
        raise ClassroomError(said(
            "{label}: as wide as {width} letters (an accent counts one, a wide character two or more); at most {most}.",
            label=label, width=width, most=most,
        ))
    return cleaned


def check_name(name: str) -> str:
    cleaned = check_text(NAME_LABEL, name, MAX_NAME)
    if not cleaned:
        raise ClassroomError(said("Your name: type a name (1 to 40 characters) so your teacher knows who answered."))
    if all(shows_nothing(ch) for ch in cleaned):
        raise ClassroomError(said(
            "Your name: it shows nothing (only blank or invisible characters); type a name your teacher can read."
        ))
    return cleaned


# An anonymous class's names: an animal and a number ("Otter 17"), drawn at random for each student, never twice in
# a class. Plain words a teacher can read out, none of them a name a student could be mistaken for.
ANIMALS = (
    "Badger", "Bear", "Beaver", "Bison", "Camel", "Crane", "Deer", "Dolphin", "Eagle", "Falcon", "Fox", "Gecko",
    "Hare", "Hedgehog", "Heron", "Ibis", "Jaguar", "Koala", "Lemur", "Lion", "Llama", "Lynx", "Marten", "Moose",
    "Newt", "Otter", "Owl", "Panda", "Pelican", "Puffin", "Quail", "Raven", "Robin", "Seal", "Stork", "Swan",
    "Tapir", "Tiger", "Toucan", "Turtle", "Walrus", "Wolf", "Wombat", "Yak", "Zebra",
)  # fmt: skip
ANIMAL_NUMBERS = 99


def anonymous_name(taken) -> str:
    """A random "Animal N" not in ``taken`` (names already in the class, compared as name_key does); with every
    such name taken (4,455 of them: more than a class holds), "Student N"."""
    used = {name_key(n) for n in taken}
    for _ in range(50):
        name = f"{secrets.choice(ANIMALS)} {secrets.randbelow(ANIMAL_NUMBERS) + 1}"
        if name_key(name) not in used:
            return name
    free = (f"{animal} {n}" for animal in ANIMALS for n in range(1, ANIMAL_NUMBERS + 1))
    return next((name for name in free if name_key(name) not in used), f"Student {len(used) + 1}")


def check_yes_no(value, what: str) -> bool:
    """A setting's yes or no (a bool, nothing else: a form or a test could send "yes" or 1)."""
    if not isinstance(value, bool):
        raise ClassroomError(said("{label}: {value} is not yes or no.", label=what, value=repr(str(value)[:20])))
    return value


MAX_IDENTIFIER = 32
IDENTIFIER_CHARACTERS = frozenset("ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789-_.")


def check_identifier(identifier: str) -> str:
    """The student number a student may give (optional: "" when none): 1 to 32 letters, digits, - _ or ., as an LMS
    keys its rows; anything else is refused by name, never stored."""
    text_ = bounded(IDENTIFIER_LABEL, identifier or "", MAX_IDENTIFIER).strip()
    if len(text_) > MAX_IDENTIFIER:
        raise ClassroomError(said(
            "Student number: at most {most} characters (got {count}).", most=MAX_IDENTIFIER, count=len(text_)
        ))
    bad = sorted({c for c in text_ if c not in IDENTIFIER_CHARACTERS})
    if bad:
        shown = " ".join(repr(c) for c in bad[:3])
        raise ClassroomError(said(
            "Student number: {characters} cannot be part of it; use letters, digits, - _ or . (or leave it empty).",
            characters=shown,
        ))
    return text_


@functools.lru_cache(maxsize=4096)
def name_key(name: str) -> str:
    """What makes two names the same for a ban and for duplicates: names that look alike. NFKC and case folded, then
    only letters, digits and marks kept (spaces, punctuation, symbols and invisible characters dropped: "Ann." =
    "ann" = "A n n"), then UTS #39's confusable skeleton (Cyrillic "Аnn" = "Ann", "B0b" = "Bob"), case folded again. A
    name of symbols alone keeps its symbols."""
    folded = unicodedata.normalize("NFKC", str(name)).casefold()
    kept = "".join(
        ch for ch in folded if unicodedata.category(ch)[0] in "LNM" and not ignorable(ch) and ch not in BLANKS
    )
    if not kept:
        kept = "".join(ch for ch in folded if not shows_nothing(ch))
    return skeleton(kept).casefold()


def distinct_labels(names: list[str]) -> list[str]:
    """Names in join order, each label different from every other and from every name that looks alike: a name that
    looks like an earlier one (name_key: "Ann", Cyrillic "Аnn", "Ann.") is numbered by its turn (Ann, Bob, Аnn (2)),
    skipping a number that someone typed as their name or that is already taken."""
    typed = {name_key(n) for n in names}
    used: set[str] = set()  # the keys of the labels given
    last: dict[str, int] = {}  # the last number given to each key
    labels = []
    for name in names:
        label, key = name, name_key(name)
        if key in used:
            n = last.get(key, 1)
            while name_key(label) in used or name_key(label) in typed:
                n += 1
                label = f"{name} ({n})"
            last[key] = n
        used.add(name_key(label))
        labels.append(label)
    return labels
