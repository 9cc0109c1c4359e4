"""Names that look alike: the confusable skeleton of Unicode's UTS #39 (Unicode Security Mechanisms, section 4),
and which characters show nothing at all.

``skeleton(X)``: X in NFD, its default-ignorable characters removed, each character replaced by its prototype from
``confusables.txt`` (Unicode's own data file, shipped beside this module: version and licence in its header), then NFD
again. Two strings look alike when their skeletons are equal: Cyrillic "Аnn" and Latin "Ann" both give "Ann".

No maintained Python library installs here without a compiler and ICU (PyICU's SpoofChecker is one), so the data file
is read directly (once per process, about 6,300 lines). Python's ``unicodedata`` has no Default_Ignorable_Code_Point
property: its ranges below are those of DerivedCoreProperties.txt 15.0 (tests/test_class_names.py reads them back
from Debian's unicode-data when it is installed).
"""

from __future__ import annotations

import functools
import unicodedata
from pathlib import Path

DATA_FILE = Path(__file__).with_name("confusables.txt")

# Default_Ignorable_Code_Point (DerivedCoreProperties.txt, Unicode 15.0): drawn as nothing (joiners, variation
# selectors, bidi controls, the Hangul fillers, tags).
DEFAULT_IGNORABLE = (
    (0x00AD, 0x00AD), (0x034F, 0x034F), (0x061C, 0x061C), (0x115F, 0x1160), (0x17B4, 0x17B5), (0x180B, 0x180F),
    (0x200B, 0x200F), (0x202A, 0x202E), (0x2060, 0x206F), (0x3164, 0x3164), (0xFE00, 0xFE0F), (0xFEFF, 0xFEFF),
    (0xFFA0, 0xFFA0), (0xFFF0, 0xFFF8), (0x1BCA0, 0x1BCA3), (0x1D173, 0x1D17A), (0xE0000, 0xE0FFF),
)  # fmt: skip
# Characters that are no default-ignorable but still draw nothing visible on their own.
BLANKS = frozenset("\u2800")  # BRAILLE PATTERN BLANK
_VISIBLE_CATEGORIES = ("L", "N", "P", "S")  # letters, digits, punctuation, symbols (a mark needs a base)


def ignorable(ch: str) -> bool:
    code = ord(ch)
    return any(low <= code <= high for low, high in DEFAULT_IGNORABLE)


def shows_nothing(ch: str) -> bool:
    """Whether ``ch`` on its own draws nothing a reader sees: a default-ignorable, a space, a blank, a control or
    format character, or a mark without a base."""
    if ignorable(ch) or ch in BLANKS or ch.isspace():
        return True
    return unicodedata.category(ch)[0] not in _VISIBLE_CATEGORIES


@functools.lru_cache(maxsize=1)
def prototypes() -> dict[str, str]:
    """Each confusable character's prototype (``source ; target ; MA`` lines of confusables.txt)."""
    table: dict[str, str] = {}
    for line in DATA_FILE.read_text(encoding="utf-8-sig").splitlines():
        data = line.split("#", 1)[0].strip()
        if not data:
            continue
        fields = [f.strip() for f in data.split(";")]
        if len(fields) < 2:
            continue
        source = "".join(chr(int(h, 16)) for h in fields[0].split())
        table[source] = "".join(chr(int(h, 16)) for h in fields[1].split())
    return table


def skeleton(text_: str) -> str:
    """UTS #39's skeleton of ``text_``: NFD, default-ignorables removed, each character mapped to its prototype, NFD."""
    table = prototypes()
    decomposed = unicodedata.normalize("NFD", text_)
    mapped = "".join(table.get(ch, ch) for ch in decomposed if not ignorable(ch))
    return unicodedata.normalize("NFD", mapped)
