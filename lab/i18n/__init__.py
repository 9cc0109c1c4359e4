"""The lab's languages: which one a page speaks, and its words from a gettext catalog.

Seven languages (:data:`LANGUAGES`): English, the source, and Spanish, German, French, Brazilian Portuguese,
Simplified Chinese and Arabic, each a Babel catalog (``lab/i18n/catalogs/<locale>/LC_MESSAGES/lab.po``) compiled
to ``lab.mo`` by the project's set-up (``python -m lab.i18n.compile``, run by ``./run`` and ``.ci/run``). A
catalog whose compiled file is missing or older than its ``.po`` is read from the ``.po`` itself, so a fresh
clone speaks every language before any set-up. Messages are whole sentences with named placeholders
(``{count}``), plurals through ``ngettext`` and the language's own plural rule (the ``.po``'s Plural-Forms),
never text glued together. The maths stays maths: p, q, r, Z, α and fractions are the same in every language.

Which language a page speaks (:func:`language_for`): ``?lang=`` in its link (an unknown value is refused by
name, like every link value), else the browser's (Streamlit's ``st.context.locale``, matched by language:
``de-AT`` is German, ``pt`` Brazilian Portuguese, ``zh-CN`` Simplified Chinese), else English.

:data:`PSEUDO` is a test language, never offered: every catalogued message accented and bracketed
(``[Ŝţàŕţ ĥéŕé]``) with its placeholders kept, so a page rendered in it shows at once any text that did not
come through the catalog.
"""

from __future__ import annotations

import gettext
import io
import re
from dataclasses import dataclass
from functools import cache
from pathlib import Path

from lab.core.errors import LabInputError
from lab.core.numbers import shown

CATALOGS = Path(__file__).resolve().parent / "catalogs"
DOMAIN = "lab"
TEMPLATE = CATALOGS / f"{DOMAIN}.pot"


@dataclass(frozen=True)
class Language:
    code: str  # as a link and <html lang> write it (BCP 47)
    locale: str  # the catalog's folder, Babel's locale identifier
    name: str  # in the language itself, for the selector
    direction: str = "ltr"  # "rtl": the page flows right to left
    decimal_comma: bool = False  # writes 0,75: boxes accept it, lists are separated by ";"


LANGUAGES: dict[str, Language] = {
    lang.code: lang
    for lang in (
        Language("en", "en", "English"),
        Language("es", "es", "Español", decimal_comma=True),
        Language("de", "de", "Deutsch", decimal_comma=True),
        Language("fr", "fr", "Français", decimal_comma=True),
        Language("pt-BR", "pt_BR", "Português (Brasil)", decimal_comma=True),
        Language("zh-Hans", "zh_Hans", "简体中文"),
        Language("ar", "ar", "العربية", direction="rtl"),
    )
}
SOURCE = "en"  # the language the code is written in: its catalog is the messages themselves
PSEUDO = "en-XA"  # tests only (BCP 47's private pseudo-locale region)

# A browser's language tag -> the lab's language, for tags whose first part alone would not say it.
_BROWSER_ALIASES = {"pt": "pt-BR", "zh": "zh-Hans", "zh-cn": "zh-Hans", "zh-sg": "zh-Hans", "zh-hans": "zh-Hans"}


class LanguageInputError(LabInputError):
    """A language a link asks for that the lab does not speak."""


def language_from_link(value) -> str:
    """``?lang=`` as the lab's language code (case and ``_`` forgiven: ``pt_br`` is ``pt-BR``); anything else is
    refused by name."""
    text = str(value)
    wanted = text.strip().replace("_", "-").lower()
    for code in LANGUAGES:
        if code.lower() == wanted:
            return code
    raise LanguageInputError(
        f"lang: {shown(text)} is not one of the lab's languages ({', '.join(LANGUAGES)})"
    )


def language_of_browser(locale: str | None) -> str | None:
    """The lab's language for a browser's language tag (``de-AT``, ``pt``, ``zh-CN``), or None."""
    if not locale or not isinstance(locale, str) or len(locale) > 35:  # BCP 47 tags are short
        return None
    tag = locale.strip().replace("_", "-").lower()
    if tag in _BROWSER_ALIASES:
        return _BROWSER_ALIASES[tag]
    if tag.startswith("zh-") and ("hant" in tag or tag in ("zh-tw", "zh-hk", "zh-mo")):
        return None  # Traditional Chinese: not Simplified
    for code in LANGUAGES:
        if tag == code.lower():
            return code
    first = tag.split("-", 1)[0]
    return _BROWSER_ALIASES.get(first) or (first if first in LANGUAGES else None)


def language_for(link_value: str | None, browser_locale: str | None) -> str:
    """The page's language: the link's (refused by :class:`LanguageInputError` when unknown), else the browser's,
    else English."""
    if link_value is not None:
        return language_from_link(link_value)
    return language_of_browser(browser_locale) or SOURCE


_PLACEHOLDER = re.compile(r"\{[A-Za-z_][A-Za-z0-9_]*\}")
_PSEUDO_LETTERS = str.maketrans(
    "abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ",
    "àƀçđéƒĝĥíĵķĺɱñóþǫŕšţúṽŵẋýžÀƁÇĐÉƑĜĤÍĴĶĹṀÑÓÞǪŔŠŢÚṼŴẊÝŽ",
)


def pseudo(message: str) -> str:
    """A message as the pseudo-language writes it: letters accented, placeholders kept, bracketed."""
    parts, last = [], 0
    for match in _PLACEHOLDER.finditer(message):
        parts.append(message[last:match.start()].translate(_PSEUDO_LETTERS))
        parts.append(match.group(0))
        last = match.end()
    parts.append(message[last:].translate(_PSEUDO_LETTERS))
    return "[" + "".join(parts) + "]"


class Texts:
    """One language's words, used as gettext's ``_``: ``_ = texts(language)``, then ``_("Start here")``,
    ``_("{count} of {total} answered", count=3, total=40)`` (named placeholders filled after the lookup) and
    ``_.ngettext("{count} student", "{count} students", n, count=n)`` (the language's own plural rule)."""

    def __init__(self, language: Language | None, translations: gettext.NullTranslations):
        self.language = language
        self._translations = translations

    def __call__(self, message: str, /, **named) -> str:  # positional-only: {message} may be a placeholder
        text = self._translations.gettext(message)
        return text.format(**named) if named else text

    def ngettext(self, singular: str, plural: str, n: int, /, **named) -> str:
        text = self._translations.ngettext(singular, plural, n)
        return text.format(**named) if named else text


def _compiled(locale: str) -> gettext.GNUTranslations | None:
    """The catalog of ``locale``: its compiled file when it is newer than the ``.po``, else the ``.po`` compiled in
    memory; None when there is no catalog."""
    folder = CATALOGS / locale / "LC_MESSAGES"
    po, mo = folder / f"{DOMAIN}.po", folder / f"{DOMAIN}.mo"
    if not po.exists():
        return None
    if mo.exists() and mo.stat().st_mtime >= po.stat().st_mtime:
        with mo.open("rb") as handle:
            return gettext.GNUTranslations(handle)
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with po.open("rb") as handle:
        catalog = read_po(handle, locale=locale)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


def _pseudo_translations() -> gettext.GNUTranslations:
    from babel.messages.mofile import write_mo
    from babel.messages.pofile import read_po

    with TEMPLATE.open("rb") as handle:
        catalog = read_po(handle)
    for message in catalog:
        if not message.id:
            continue
        if isinstance(message.id, tuple):
            message.string = tuple(pseudo(form) for form in message.id)
        else:
            message.string = pseudo(message.id)
    buffer = io.BytesIO()
    write_mo(buffer, catalog)
    buffer.seek(0)
    return gettext.GNUTranslations(buffer)


@cache
def texts(code: str) -> Texts:
    """The words of language ``code`` (one of :data:`LANGUAGES`, or :data:`PSEUDO`), loaded once per process."""
    if code == PSEUDO:
        return Texts(None, _pseudo_translations())
    language = LANGUAGES[code]
    if code == SOURCE:
        return Texts(language, gettext.NullTranslations())
    return Texts(language, _compiled(language.locale) or gettext.NullTranslations())


def N_(message: str) -> str:  # noqa: N802 - gettext's own name for it
    """Marks a message to translate where it is written (a constant), for ``pybabel extract``; it is translated
    where it is shown, with the page's :func:`texts`."""
    return message
