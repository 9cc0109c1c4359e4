"""Text for people: short exact labels and markdown-safe token names (no Streamlit here)."""

from __future__ import annotations

import re
from fractions import Fraction

from lab.core.formatting import decimal_text, fraction_text

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
