"""Text for people and for JSON: exact fractions beside decimals, short labels, and markdown-safe and
plotly-safe token names (no Streamlit here)."""

from __future__ import annotations

import re
from fractions import Fraction

from lab.core.errors import Said, said


def fraction_text(value: Fraction | int) -> str:
    """``3/4``, ``0``, ``1``: the exact form used in tables and in ``--exact`` JSON."""
    value = Fraction(value)
    return str(value.numerator) if value.denominator == 1 else f"{value.numerator}/{value.denominator}"


def box_text(value: Fraction | int, decimal_comma: bool = False) -> str:
    """A value as a box shows it and reads it back exactly: ``0.40`` (two places at least), ``0.4321``, or
    ``1/3`` when no decimal of four places is exact (``decimal_comma``: ``0,40``)."""
    value = Fraction(value)
    if (value * 10_000).denominator != 1:
        return fraction_text(value)
    text = f"{int(abs(value) * 10_000):05d}"  # ten-thousandths (exact here): at least "00000"
    whole, places = text[:-4], text[-4:].rstrip("0")
    return f"{'-' if value < 0 else ''}{whole}{',' if decimal_comma else '.'}{places.ljust(2, '0')}"


def decimal_text(value, digits: int = 6, decimal_comma: bool = False) -> str:
    """A short decimal for display (``0.75``, ``1e-06``; ``0,75`` in a language that writes the decimal comma)."""
    text = f"{float(value):.{digits}g}"
    return text.replace(".", ",") if decimal_comma else text


def with_decimal(value: Fraction, digits: int = 6, decimal_comma: bool = False) -> str:
    """``3/4 (0.75)`` (``3/4 (0,75)`` with ``decimal_comma``); an integer-valued fraction is written once."""
    exact = fraction_text(value)
    if Fraction(value).denominator == 1:
        return exact
    return f"{exact} ({decimal_text(value, digits, decimal_comma)})"


def json_number(value, exact: bool):
    """A JSON value: a fraction string on the exact path, a float otherwise."""
    if exact:
        return fraction_text(value)
    return float(value)


def sci_text(value, missing: str = "-") -> str:
    """``1.234e-05``; ``missing`` when the value is None (no float result)."""
    return missing if value is None else f"{value:.3e}"


def vector_text(values, digits: int = 10, missing: str = "-") -> str:
    """``(0.75, 0.25)`` with ``digits`` significant digits; ``missing`` when the vector is None."""
    return missing if values is None else "(" + ", ".join(f"{float(v):.{digits}g}" for v in values) + ")"


_SHARE_WORDS = {  # (a share, the class's share as a subject, the same opening a sentence)
    Fraction(1, 2): (said("half"), said("half the class"), said("Half the class")),
    Fraction(1, 3): (said("a third"), said("a third of the class"), said("A third of the class")),
    Fraction(2, 3): (said("two thirds"), said("two thirds of the class"), said("Two thirds of the class")),
    Fraction(1, 4): (said("a quarter"), said("a quarter of the class"), said("A quarter of the class")),
    Fraction(3, 4): (said("three quarters"), said("three quarters of the class"), said("Three quarters of the class")),
}


def share_words(count: int, total: int, of_class: bool = False, opening: bool = False) -> Said:
    """``count`` of ``total`` in plain words: "all", "none", "half", "a third", ... or "3 of 7"; with
    ``of_class`` the subject of a sentence: "everyone", "nobody", "half the class", "3 of 7 students" (``opening``
    it: "Everyone", "Half the class")."""
    form = 2 if opening else int(of_class)
    if total <= 0 or count <= 0:
        return (said("none"), said("nobody"), said("Nobody"))[form]
    if count >= total:
        return (said("all"), said("everyone"), said("Everyone"))[form]
    words = _SHARE_WORDS.get(Fraction(count, total))
    if words:
        return words[form]
    if of_class or opening:
        return said("{count} of {total} students", count=count, total=total)
    return said("{count} of {total}", count=count, total=total)

# A fraction longer than this is shown as a decimal in chart labels (the exact value stays in tables).
SHORT_FRACTION_CHARS = 9

_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]()<>#+\-.!|~$:])")


# Streamlit's markdown turns ":name:" into an emoji and ":material/name:" into an icon even when the colons are
# backslash-escaped (it rewrites ":material/" in the source, and finds shortcodes in the text after unescaping).
# An invisible WORD JOINER after a colon that could start one (a letter, digit, _, - or + follows) breaks both
# patterns and shows the text as typed.
_WORD_JOINER = "\u2060"
_SHORTCODE_START = re.compile(r":(?=[\w+\-]|\\[+\-_])")


def markdown_escape(text: str) -> str:
    """Backslash-escape every markdown character so user text (token names, URL values) shows as
    typed in a widget label or a markdown line: no links, images, emphasis, HTML, emoji or icon shortcodes
    (``:smile:``, ``:material/home:``: such a colon is followed by an invisible word joiner)."""
    return _SHORTCODE_START.sub(":" + _WORD_JOINER, _MARKDOWN_SPECIAL.sub(r"\\\1", str(text)))


def plotly_text(text: str) -> str:
    """A token name as plotly draws it: plotly reads <b>, <a href=...> and entities in text, so the
    three characters that make tags or entities are written as entities (shown as typed)."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def short_label(value, max_chars: int = SHORT_FRACTION_CHARS) -> str:
    """A bar label: the exact fraction when it is short (``3/4``), otherwise the decimal (``0.0123``)."""
    if isinstance(value, Fraction) or isinstance(value, int):
        text = fraction_text(value)
        if len(text) <= max_chars:
            return text
    return decimal_text(value, 3)


def exact_text(value, max_chars: int = 40) -> str:
    """A table cell: the whole exact fraction, or its digit counts when it would not fit a table."""
    value = Fraction(value)
    text = fraction_text(value)
    if len(text) <= max_chars:
        return text
    return f"{len(str(value.numerator))}-digit / {len(str(value.denominator))}-digit fraction"


def markdown_table(header: tuple[str, ...] | list[str], rows) -> str:
    """A GitHub-flavoured markdown table whose cells show as typed: every cell goes through markdown_escape
    (which also escapes the ``|`` that would end a cell) and a line break in a cell becomes a space.

    A page draws a small table this way, as part of one markdown element, rather than with st.table: no
    Arrow conversion and one element fewer on every run of every student's page."""

    def line(cells) -> str:
        return "| " + " | ".join(markdown_escape(str(c).replace("\n", " ")) for c in cells) + " |"

    return "\n".join([line(header), "| " + " | ".join("---" for _ in header) + " |", *(line(r) for r in rows)])
