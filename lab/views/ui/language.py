"""The page's language (lab.i18n): chosen once per run by app.py, kept for the session, offered on every page.

Which language a run speaks (:func:`choose`): ``?lang=`` in the link (a link keeps its language; an unknown value is
refused by name and the page stays in the language it had), else the language chosen earlier in this session (the
navigation's links drop the link's parameters), else the browser's (``st.context.locale``), else English. Choosing
one in the selector (:func:`selector`) writes it into the link, so a copied link opens in it.

A page whose words are all in the catalogs is listed in lab.views.shell with ``translated=True``. Any other page
is shown in English under a line, in the chosen language, that says so; its main part is marked ``lang="en"``
(WCAG 3.1.2) and flows left to right. ``<html lang dir>`` is the chosen language's (WCAG 3.1.1): the page's frame
(navigation, selector, that line) speaks it.
"""

from __future__ import annotations

import re

import streamlit as st

from lab.core.errors import Said, said_of
from lab.core.formatting import markdown_escape, with_decimal
from lab.core.numbers import shown
from lab.i18n import LANGUAGES, PSEUDO, SOURCE, LanguageInputError, Texts, language_from_link, language_of_browser
from lab.i18n import texts as catalog_texts

LINK_PARAM = "lang"
CHOSEN = "ui_lang"  # the session's chosen language (a link's or the selector's); tests may set PSEUDO here
THIS_RUN = "ui_lang_run"  # the language this run speaks, decided once by choose()
PAGE_SPEAKS = "ui_lang_page"  # the language of this run's page body: THIS_RUN's, or English (not yet translated)
REFUSED = "ui_lang_refused"  # this run's refusal of the link's value, shown at the top of the page
SELECT_KEY = "ui_lang_select"


def _known(code) -> bool:
    return code in LANGUAGES or code == PSEUDO


def choose() -> str:
    """This run's language (see the module's docstring); app.py calls it first, before any text is drawn."""
    raw = st.query_params.get(LINK_PARAM)
    st.session_state.pop(REFUSED, None)
    if raw is not None:
        try:
            code = language_from_link(raw)
        except LanguageInputError:
            st.session_state[REFUSED] = shown(str(raw))  # bounded, whatever the link's length
            del st.query_params[LINK_PARAM]  # the page keeps the language it had, and its link says so
        else:
            st.session_state[CHOSEN] = code
    chosen = st.session_state.get(CHOSEN)
    code = chosen if _known(chosen) else language_of_browser(_browser()) or SOURCE
    st.session_state[THIS_RUN] = code
    return code


def keep_in_link() -> None:
    """A language chosen by a link or the selector stays in the page's link, so a link copied from the page opens
    in it (the navigation's links carry no parameter). app.py calls it after the navigation, which clears them."""
    code = st.session_state.get(CHOSEN)
    if code in LANGUAGES and st.query_params.get(LINK_PARAM) != code:
        st.query_params[LINK_PARAM] = code


def _browser() -> str | None:
    try:
        return st.context.locale
    except Exception:  # noqa: BLE001 - a context without a browser (bare runs): no browser language
        return None


def chosen_explicitly() -> bool:
    """Did a link or the selector choose this session's language (rather than the browser)?"""
    return _known(st.session_state.get(CHOSEN))


def current() -> str:
    """This run's language code (English before :func:`choose` has run)."""
    code = st.session_state.get(THIS_RUN, SOURCE)
    return code if _known(code) else SOURCE


def texts() -> Texts:
    """The page's words: ``_ = texts()``, then ``_("Glossary")``. The chosen language's on a translated page, English
    on a page not yet translated (so a shared part, a chart or a box, never mixes two languages on one page)."""
    return catalog_texts(page_code())


def say(message) -> str:
    """A message to a person in the page's language: a :class:`~lab.core.errors.Said` (or an error made from one)
    translated, other text as it is. On a right-to-left page a short left-to-right value (a formula, ``p(A) = 1/10 <
    q(A) = 1/2``) does not wrap: a line break inside it would show its two halves in the wrong order."""
    message = said_of(message)
    if not isinstance(message, Said):
        return str(message)
    if type(message) is Said and message.values and right_to_left():
        message = Said(message.template, {k: _unbroken(v) for k, v in message.values.items()})
    return message.translated(texts())


_ARABIC = re.compile("[\u0600-\u06ff]")


def _unbroken(value):
    """A short value written left to right, its spaces made unbreakable (a right-to-left page)."""
    if isinstance(value, Said) or not isinstance(value, str) or len(value) > 40 or _ARABIC.search(value):
        return value
    return value.replace(" ", "\u00a0")


def page_code() -> str:
    """The code of the page's language (see :func:`texts`)."""
    code = st.session_state.get(PAGE_SPEAKS, current())
    return code if _known(code) else SOURCE


def frame_texts() -> Texts:
    """The frame's words (the menu, the toggle, the notice): always the chosen language."""
    return catalog_texts(current())


def page_speaks(translated: bool) -> str:
    """app.py, before the page runs: the page body's language (English where the page is not yet translated)."""
    code = current() if translated else SOURCE
    st.session_state[PAGE_SPEAKS] = code
    return code


def direction() -> str:
    language = LANGUAGES.get(current())
    return language.direction if language else "ltr"


def list_text(items) -> str:
    """Words in a list, joined as the page's language joins them ("a, b", "a، b", "a，b")."""
    return {"ar": "، ", "zh-Hans": "，"}.get(page_code(), ", ").join(items)


def right_to_left() -> bool:
    """Does the page body's language flow right to left (an untranslated page is English, left to right)?"""
    language = LANGUAGES.get(page_code())
    return bool(language and language.direction == "rtl")


def isolated(text: str) -> str:
    """A formula or a number inside a sentence (``3/5 (0.6)``), kept left to right on a right-to-left page: between
    Unicode's isolates (LRI … PDI), else its brackets and parts trade places around the Arabic words. The page
    body's language decides (an untranslated page is English, left to right)."""
    language = LANGUAGES.get(page_code())
    return f"\u2066{text}\u2069" if language and language.direction == "rtl" else text


def exact_and_decimal(value, digits: int = 6) -> str:
    """``3/4 (0.75)`` as the page's language writes it: its decimal mark, kept left to right on a right-to-left
    page."""
    return isolated(with_decimal(value, digits, decimal_comma=decimal_comma()))


def number(value, spec: str = "") -> str:
    """``value`` formatted by ``spec`` (Python's: ``",.4f"``, ``".1%"``) as the page's language writes numbers: in a
    decimal-comma language ``0,1234`` and ``10.000`` (French: ``10\u202f000``)."""
    text = format(value, spec)
    if not decimal_comma():
        return text
    return text.translate({ord(","): "\u202f" if page_code() == "fr" else ".", ord("."): ","})


def list_text_in(text: str, comma: bool) -> str:
    """A typed list of ``token=value`` entries (``A=2, C=0.5``) written the way of a language with (``comma``) or
    without a decimal comma (``A=2; C=0,5``): separators and decimal marks traded, nothing else."""
    if comma:
        return text.replace(",", ";").replace(".", ",")
    return text.replace(",", ".").replace(";", ",")


def keep_lists_in_language(keys: tuple[str, ...], store: str) -> None:
    """Before the boxes ``keys`` (lists of ``token=value``) are drawn: when the page's language writes decimals
    another way than the one their text was typed in, the text is written again its way (``A=2, C=0.5`` becomes
    ``A=2; C=0,5`` in German), so a language chosen mid-session does not turn a valid list into a refused one."""
    comma = decimal_comma()
    typed_in = st.session_state.get(store)
    if typed_in is not None and typed_in != comma:
        for key in keys:
            if isinstance(st.session_state.get(key), str):
                st.session_state[key] = list_text_in(st.session_state[key], comma)
    st.session_state[store] = comma


def decimal_comma() -> bool:
    """Does the page's language write 0,75 (boxes then accept it, lists are separated by ";")?"""
    language = LANGUAGES.get(page_code())
    return bool(language and language.decimal_comma)


# a markdown link to a page of the app (``glossary#z``, ``binomial-lab?n=1``): opening it starts a new session
_APP_LINK = re.compile(r"\]\((?![a-z]+:|/)([A-Za-z0-9_-]+)(\?[^)#\s]*)?(#[^)\s]*)?\)")


def keep_language_in_links(markdown: str) -> str:
    """``markdown`` with the chosen language added to its links to the app's pages (a link opens a new session,
    which would otherwise speak the browser's language)."""
    code = st.session_state.get(CHOSEN)
    if code not in LANGUAGES:
        return markdown

    def add(match: re.Match) -> str:
        query = match.group(2) or ""
        query = f"{query}&{LINK_PARAM}={code}" if query else f"?{LINK_PARAM}={code}"
        return f"]({match.group(1)}{query}{match.group(3) or ''})"

    return _APP_LINK.sub(add, markdown)


def _on_select() -> None:
    """The menu's choice, before the run: into the link too, which choose() reads first (a link's older language
    would otherwise win)."""
    code = st.session_state.get(SELECT_KEY)
    if code in LANGUAGES:  # a widget state a browser never sends (anything else) changes nothing
        st.session_state[CHOSEN] = code
        st.query_params[LINK_PARAM] = code


def selector() -> None:
    """The language menu: each language named in itself, so anyone finds their own. Drawn by app.py on every page
    but the projector's (which speaks its link's language)."""
    _ = frame_texts()
    codes = list(LANGUAGES)
    now = current()
    if st.session_state.get(SELECT_KEY) != now and now in LANGUAGES:
        st.session_state[SELECT_KEY] = now  # the menu shows the language the page speaks
    st.selectbox(
        _("Language"),
        codes,
        key=SELECT_KEY,
        format_func=lambda code: LANGUAGES[code].name,
        on_change=_on_select,
        label_visibility="collapsed",
        width=170,
    )


def refusal() -> None:
    """The link's refused language, if any, at the top of the page (in the page's language)."""
    if problem := st.session_state.get(REFUSED):
        _ = frame_texts()
        st.container(key="ui-lang-frame-refused").warning(markdown_escape(_(
            "lang: {value} is not one of the lab's languages ({codes}); the page stays in {language}.",
            value=problem, codes=", ".join(LANGUAGES), language=LANGUAGES.get(current(), LANGUAGES[SOURCE]).name,
        )), icon=":material/translate:")


def not_translated_notice() -> None:
    """Above a page not yet translated: in the chosen language, that the page is shown in English."""
    if current() == SOURCE:
        return
    _ = frame_texts()
    st.container(key="ui-lang-frame-notice").info(
        _("This page is not translated yet: it is shown in English."), icon=":material/translate:"
    )


# <html lang dir> follow the page's language; a page not yet translated has its main part marked as English.
_DOCUMENT_JS = r"""
export default function ({ data }) {
  window.__residualLabLanguage = data;  // the latest run's; one observer per tab applies it as the page changes
  const apply = () => {
    const now = window.__residualLabLanguage;
    const root = document.documentElement;
    if (root.lang !== now.lang) root.lang = now.lang;
    if (root.dir !== now.dir) root.dir = now.dir;
    const main = document.querySelector("[data-testid=stMain]");
    if (main && now.main_lang && main.lang !== now.main_lang) { main.lang = now.main_lang; main.dir = "ltr"; }
    if (main && !now.main_lang && main.hasAttribute("lang")) {
      main.removeAttribute("lang");
      main.removeAttribute("dir");
    }
    // the frame's own lines at the top of the page (the notice, a refused link) speak the chosen language
    for (const part of document.querySelectorAll("[class*=st-key-ui-lang-frame]")) {
      if (part.lang !== now.lang) { part.lang = now.lang; part.dir = now.dir; }
    }
    // Streamlit's sliders write their values with a printf pattern, which has no decimal comma: 0,75 where the page
    // writes one, on the thumb, at the ends and for a screen reader (aria-valuetext)
    if (!now.comma) return;
    const comma = (text) => text.replace(/(\d)\.(\d)/g, "$1,$2");
    for (const slider of document.querySelectorAll("[data-testid=stSlider]")) {
      const walker = document.createTreeWalker(slider, NodeFilter.SHOW_TEXT);
      for (let node = walker.nextNode(); node; node = walker.nextNode()) {
        const text = comma(node.nodeValue);
        if (text !== node.nodeValue) node.nodeValue = text;
      }
      for (const thumb of slider.querySelectorAll("input[type=range][aria-valuetext]")) {  // what a screen reader says
        const said = comma(thumb.getAttribute("aria-valuetext"));
        if (said !== thumb.getAttribute("aria-valuetext")) thumb.setAttribute("aria-valuetext", said);
      }
    }
  };
  apply();
  if (window.__residualLabLanguageObserver) return;
  let queued = false;
  window.__residualLabLanguageObserver = new MutationObserver(() => {
    if (!queued) { queued = true; requestAnimationFrame(() => { queued = false; apply(); }); }
  });
  window.__residualLabLanguageObserver.observe(document.body, {
    childList: true, subtree: true, characterData: true, attributes: true, attributeFilter: ["aria-valuetext"],
  });
}
"""
_document = st.components.v2.component("residual_lab_document_language", js=_DOCUMENT_JS, isolate_styles=False)


def mark_document(translated: bool) -> None:
    """``<html lang dir>`` for this run; ``translated``: does the page's main part speak the chosen language?"""
    code = current()
    html_lang = "en" if code == PSEUDO else code
    main_lang = "" if translated or code == SOURCE else "en"
    _document(
        key="a11y-document-language",
        data={"lang": html_lang, "dir": direction(), "main_lang": main_lang, "comma": translated and decimal_comma()},
    )
