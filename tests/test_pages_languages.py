"""The pages in the lab's languages (lab/views/ui/language.py): which language a page speaks (link, session,
browser), the selector on every page, an unknown ``?lang=`` refused by name, the notice above a page not yet
translated, and the pseudo-language: on a translated page every word a user reads came through the catalog.

Expected words are read from the ``.po`` files with Babel's reader, apart from the app's gettext path."""

from __future__ import annotations

import re

import pytest
from babel.messages.pofile import read_po
from pagetest import APP, open_linked_page, plain
from streamlit.testing.v1 import AppTest

import lab.i18n as i18n
from lab.i18n import LANGUAGES, PSEUDO
from lab.views.shell import LINKED_PAGES, PAGES
from lab.views.ui import language

TRANSLATED_PAGES = [entry for entry in PAGES if entry.translated]
OTHER_PAGES = [entry for entry in (*PAGES, *LINKED_PAGES) if not entry.translated]
NOTICE = "This page is not translated yet: it is shown in English."


def po(code: str) -> dict[str, str]:
    locale = LANGUAGES[code].locale
    with (i18n.CATALOGS / locale / "LC_MESSAGES" / "lab.po").open("rb") as handle:
        return {m.id: m.string for m in read_po(handle, locale=locale) if m.id and isinstance(m.id, str)}


def visible_texts(at: AppTest) -> list[str]:
    """Every text a user reads on the page as AppTest sees it: headings, markdown, captions, alerts, and each
    widget's label, help and placeholder (the language menu's options are each language's own name)."""
    texts = []
    for kind in ("title", "header", "subheader", "markdown", "caption", "text", "info", "warning", "error",
                 "success", "exception"):
        texts += [e.value for e in at.get(kind)]
    for kind in ("button", "toggle", "text_input", "number_input", "selectbox", "radio", "checkbox",
                 "slider", "select_slider", "text_area", "expander", "tabs"):
        for widget in at.get(kind):
            for attribute in ("label", "help", "placeholder"):
                value = getattr(widget, attribute, None) if kind != "expander" else widget.proto.expandable.label
                if isinstance(value, str) and value:
                    texts.append(value)
    return texts


def open_in(page: str, code: str | None = None, locale: str | None = None, params=None) -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    if locale:
        at.context["locale"] = locale  # the browser's language (st.context.locale)
    for key, value in {**({"lang": code} if code else {}), **(params or {})}.items():
        at.query_params[key] = value
    at.switch_page(page).run()
    assert not at.exception
    return at


GLOSSARY = next(entry for entry in PAGES if entry.url_path == "glossary")


@pytest.mark.parametrize("code", [c for c in LANGUAGES if c != "en"])
def test_the_glossary_speaks_the_language_of_its_link(code):
    words = po(code)
    at = open_in(GLOSSARY.file, code)
    assert at.title[0].value == words["Glossary"]
    assert [h.value for h in at.header][:3] == [words["Token"], words["Target (p)"], words["Draft (q)"]]
    assert at.caption[0].value == words[
        "The words of speculative sampling, for someone who meets them for the first time."]
    assert at.session_state[language.THIS_RUN] == code
    assert at.query_params["lang"] == code
    assert not at.info  # a translated page: no notice


def test_the_browser_language_is_the_default_and_a_link_overrides_it():
    words = po("de")
    at = open_in(GLOSSARY.file, locale="de-AT")
    assert at.title[0].value == words["Glossary"]
    assert "lang" not in at.query_params  # the browser's own language is not written into the link
    at = open_in(GLOSSARY.file, code="fr", locale="de-DE")
    assert at.title[0].value == po("fr")["Glossary"]
    assert open_in(GLOSSARY.file, locale="zh-TW").title[0].value == "Glossary"  # Traditional Chinese: English


@pytest.mark.parametrize("value", ["xx", "de-DE-x-" + "a" * 5000, "<b>ar</b>", " "])
def test_an_unknown_language_in_a_link_is_refused_by_name_and_the_page_keeps_its_language(value):
    at = open_in(GLOSSARY.file, value, locale="es-ES")
    (warning,) = [plain(w.value) for w in at.warning]
    assert warning.startswith(f"lang: '{value[:12]}") and "(en, es, de, fr, pt-BR, zh-Hans, ar)" in warning
    assert len(warning) < 200
    assert at.title[0].value == po("es")["Glossary"]  # the browser's Spanish, as before the link
    assert "lang" not in at.query_params


def test_the_language_is_kept_for_the_session_when_a_page_is_opened_from_the_menu():
    at = open_in(GLOSSARY.file, "pt-BR")
    at.query_params.clear()  # the navigation's links carry no parameter
    at.switch_page(PAGES[2].file).run()
    assert at.session_state[language.THIS_RUN] == "pt-BR"
    assert at.query_params["lang"] == "pt-BR"  # written back: a link copied from here opens in Portuguese
    assert [i.value for i in at.info] == [po("pt-BR")[NOTICE]]


def test_the_selector_on_every_page_changes_the_language_and_the_link():
    for entry in PAGES:
        at = open_linked_page(entry.file)
        menu = at.selectbox(key=language.SELECT_KEY)
        assert menu.options == [lang.name for lang in LANGUAGES.values()]
        assert menu.label == "Language"
    at = open_in(GLOSSARY.file)
    at.selectbox(key=language.SELECT_KEY).set_value("ar").run()
    assert at.title[0].value == po("ar")["Glossary"]
    assert at.query_params["lang"] == "ar"
    assert language.LANGUAGES["ar"].direction == "rtl"
    at.switch_page(PAGES[0].file).run()
    assert at.selectbox(key=language.SELECT_KEY).value == "ar"


def test_a_chosen_language_the_lab_does_not_speak_falls_back_to_the_browser():
    at = AppTest.from_file(APP, default_timeout=60)
    at.context["locale"] = "de-CH"
    at.session_state[language.CHOSEN] = "klingon"
    at.switch_page(GLOSSARY.file).run()
    assert not at.exception
    assert at.title[0].value == po("de")["Glossary"]


@pytest.mark.parametrize("entry", OTHER_PAGES, ids=[e.url_path for e in OTHER_PAGES])
def test_a_page_not_yet_translated_says_so_in_the_chosen_language(entry):
    at = open_in(entry.file, "fr")
    assert po("fr")[NOTICE] in [i.value for i in at.info]
    assert NOTICE not in [i.value for i in open_in(entry.file, "en").info]


def test_the_projector_shows_no_notice():
    at = open_in(LINKED_PAGES[0].file, "fr", params={"display": "ABCDEF"})
    assert po("fr")[NOTICE] not in [i.value for i in at.info]


# --- the pseudo-language: a word not from the catalog shows at once -----------------------------------------
BRACKETED = re.compile(r"\[[^\[\]]*\]")
# What a translated page may show outside the catalog: the maths (p, q, r, Z, α, min, max, fractions) and the names
# of the languages in the menu.
MATHS = re.compile(r"\b(min|max|p|q|r|x|Z|K)\b")


def untranslated_words(text: str) -> list[str]:
    rest = MATHS.sub(" ", BRACKETED.sub(" ", text))
    return re.findall(r"[A-Za-z]{2,}", rest)


@pytest.mark.parametrize("entry", TRANSLATED_PAGES, ids=[e.url_path for e in TRANSLATED_PAGES])
def test_under_the_pseudo_language_every_word_of_a_translated_page_came_through_the_catalog(entry):
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state[language.CHOSEN] = PSEUDO  # never offered; tests only
    at.switch_page(entry.file).run()
    assert not at.exception
    texts = visible_texts(at)
    assert len(texts) > 10
    leaks = {text: words for text in texts if (words := untranslated_words(text))}
    assert not leaks, leaks


# --- a class: the projector follows the teacher, each phone its own language --------------------------------
CLASS_PAGE = "lab/views/live_class/classroom.py"


def test_the_projector_link_speaks_the_teachers_language_and_the_join_link_none(data, monkeypatch):
    from lab.classroom import classes, teacher_link

    monkeypatch.setenv("RESIDUAL_LAB_PUBLIC_URL", "http://lab.example:8501")
    new = classes.create_class(data)
    join = teacher_link.check_teacher(data, new.code, new.teacher_token).join_key
    teacher = open_linked_page(CLASS_PAGE, {"code": new.code, "teacher": new.teacher_token, "lang": "de"})
    (projector,) = [b.proto.url for b in teacher.get("link_button") if b.proto.url and "display=" in b.proto.url]
    assert "lang=de" in projector
    joins = [c.value for c in teacher.code if f"join={join}" in c.value]
    assert joins and all("lang" not in link for link in joins)  # a phone opens it in its own language
    english = open_linked_page(CLASS_PAGE, {"code": new.code, "teacher": new.teacher_token})
    (projector,) = [b.proto.url for b in english.get("link_button") if b.proto.url and "display=" in b.proto.url]
    assert "lang=" not in projector  # English by default: the link stays as it was
    phone = AppTest.from_file(APP, default_timeout=60)
    phone.context["locale"] = "de-DE"
    phone.query_params.update({"code": new.code, "join": join})
    phone.switch_page(CLASS_PAGE).run()
    assert not phone.exception and phone.session_state[language.THIS_RUN] == "de"
