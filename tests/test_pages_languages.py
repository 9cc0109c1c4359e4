"""The pages in the lab's languages (lab/views/ui/language.py): which language a page speaks (link, session,
browser), the selector on every page, an unknown ``?lang=`` refused by name, the notice above a page not yet
translated, and the pseudo-language: on a translated page every word a user reads came through the catalog.

Expected words are read from the ``.po`` files with Babel's reader, apart from the app's gettext path."""

from __future__ import annotations

import json
import re

import pytest
from babel.messages.pofile import read_po
from pagetest import APP, open_expander, open_linked_page, plain, predictors
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
                value = getattr(widget, attribute, None)
                if isinstance(value, str) and value:
                    texts.append(value)
    return texts


def open_in(page: str, code: str | None = None, locale: str | None = None, params=None) -> AppTest:
    """``page`` opened as a link with ``?lang=code`` (and ``params``) would: the app's first run, then the page (a
    page that reruns on its first run would otherwise fall back to the default page in AppTest). ``code`` PSEUDO:
    the session speaks the pseudo-language."""
    at = AppTest.from_file(APP, default_timeout=60)
    if code == PSEUDO:
        at.session_state[language.CHOSEN] = PSEUDO  # never offered: no link can ask for it
    if locale:
        at.context["locale"] = locale  # the browser's language (st.context.locale)
    link = {**({"lang": code} if code and code != PSEUDO else {}), **(params or {})}
    at.query_params.update(link)
    at.run()
    at.query_params.clear()
    at.query_params.update(link)
    at.switch_page(page).run()
    assert not at.exception, at.exception
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
    at.switch_page(CLASS_PAGE).run()
    assert at.session_state[language.THIS_RUN] == "pt-BR"
    assert at.query_params["lang"] == "pt-BR"  # written back: a link copied from here opens in Portuguese
    assert at.header[0].value == po("pt-BR")["Join a class"]


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


# the Class is translated but for the teacher's dashboard (below: a student's page, the landing)
UNTRANSLATED = [entry for entry in OTHER_PAGES if entry.url_path != "class"]


@pytest.mark.parametrize("entry", UNTRANSLATED, ids=[e.url_path for e in UNTRANSLATED])
def test_a_page_not_yet_translated_says_so_in_the_chosen_language(entry):
    at = open_in(entry.file, "fr")
    assert po("fr")[NOTICE] in [i.value for i in at.info]
    assert NOTICE not in [i.value for i in open_in(entry.file, "en").info]


def test_the_class_landing_and_the_teacher_s_dashboard_speak_the_language(data):
    from lab.classroom import classes

    landing = open_in(CLASS_PAGE, "fr")
    assert po("fr")[NOTICE] not in [i.value for i in landing.info]
    assert [h.value for h in landing.header] == [po("fr")["Join a class"], po("fr")["Start a class (teacher)"]]
    new = classes.create_class(data, "Période 3")
    teacher = open_in(CLASS_PAGE, "fr", params={"code": new.code, "teacher": new.teacher_token})
    assert po("fr")[NOTICE] not in [i.value for i in teacher.info]
    assert teacher.header[0].value == "Période 3" and teacher.metric[0].label == po("fr")["Class code"]


def test_the_projector_shows_no_notice():
    at = open_in(LINKED_PAGES[0].file, "fr", params={"display": "ABCDEF"})
    assert po("fr")[NOTICE] not in [i.value for i in at.info]


# --- the pseudo-language: a word not from the catalog shows at once -----------------------------------------
LINK_TARGET = re.compile(r"\]\([^)\s]*\)")
INNERMOST = re.compile(r"\[[^\[\]]*\]")
# What a translated page may show outside the catalog: the maths (p, q, r, Z, α, min, max, fractions), the example's
# tokens (data: the model's own words) and the names of the languages in the menu.
ALLOWED = re.compile(r"\b(min|max|p|q|r|x|Z|K|cat|dog|fish|"
                     # and the names a program and a machine give (the Numerics page's dtypes and build details)
                     r"float|float\d\d|dtype|eps|softmax|numpy|python|IEEE|binary\d\d|little|big|fractions|Fraction)\b")


# a name written with hyphens (a rule, a mistake, a case, a model file: unprocessed-draft, same-floats) is no word
NAME = re.compile(r"\b[a-z0-9]+(?:(?:\\?-|\\?_)[a-z0-9]+)+\b")
CODE = re.compile(r"`[^`]*`")  # code is code: a dtype, a package's version, a formula as a program writes it
DIRECTIVE = re.compile(r":[a-z]+\[")  # markdown's :gray[…] and :small[…] are styles, not words


def untranslated_words(text: str) -> list[str]:
    rest = LINK_TARGET.sub("]", NAME.sub(" ", CODE.sub(" ", DIRECTIVE.sub("[", text))))  # a link's target is no word
    while (fewer := INNERMOST.sub(" ", rest)) != rest:
        rest = fewer
    return re.findall(r"[A-Za-z]{2,}", ALLOWED.sub(" ", rest))


def chart_texts(at: AppTest) -> list[str]:
    """What the page's charts say: their alt texts, axis titles, trace names and the bar predictors' words."""
    texts = []
    for element in at.get("plotly_chart"):
        spec = json.loads(element.proto.spec)
        texts.append(element.proto.alt)
        for axis in ("xaxis", "yaxis"):
            texts.append(((spec["layout"].get(axis) or {}).get("title") or {}).get("text") or "")
        texts += [trace.get("name") or "" for trace in spec["data"]]
    for data in predictors(at).values():
        texts += [data.get(k) or "" for k in ("group", "bar_word", "help", "sum_words", "sum_note")]
    texts += [p.proto.text for p in at.get("progress")]
    return [t for t in texts if t]


def leaks(at: AppTest) -> dict[str, list[str]]:
    assert not at.exception, at.exception
    return {text: words for text in visible_texts(at) + chart_texts(at) if (words := untranslated_words(text))}


def pseudo_app() -> AppTest:
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state[language.CHOSEN] = PSEUDO  # never offered; tests only
    return at


@pytest.mark.parametrize("entry", TRANSLATED_PAGES, ids=[e.url_path for e in TRANSLATED_PAGES])
def test_under_the_pseudo_language_every_word_of_a_translated_page_came_through_the_catalog(entry):
    at = pseudo_app()
    at.switch_page(entry.file).run()
    assert len(visible_texts(at)) > 10
    assert not leaks(at), leaks(at)


WRONG_TWICE = {1: "1/5", 2: "1/4", 3: "1/5", 4: "0", 5: "3/4", 6: "1/4", 7: "3", 8: "1/2"}


def test_under_the_pseudo_language_the_whole_lesson_in_every_state_came_through_the_catalog():
    """Every chapter before and after its reveal (predictions typed, so the graded table shows), its steps to the
    end, each edge case, its charts' tables, a wrong answer twice (the worked answer), a word, then the right one."""
    from test_lesson import ANSWERS

    at = pseudo_app().run()
    found = {}
    for number in range(1, 9):
        found.update(leaks(at))
        for box in [t for t in at.text_input if t.key.startswith(f"ls_{number}_pred_")]:
            box.input("1/3")
        at.button(key=f"ls_{number}_reveal").click().run()
        found.update(leaks(at))
        for prefix in ("ls_1", "ls_7"):
            while [b for b in at.button if b.key == f"{prefix}_step"] and not any(
                "[Ţĥàţ íš ţĥé ŵĥóĺé đŕàŵ" in c.value for c in at.caption
            ):
                at.button(key=f"{prefix}_step").click().run()
                found.update(leaks(at))
        if number == 4:
            for case in ("disjoint-support", "draft-misses-support"):
                at.radio(key="ls_4_case").set_value(case).run()
                found.update(leaks(at))
        for key in [k for k in ("ls_3_rec_values", "ls_4_rec_values", "ls_5_rec_values", f"ls_{number}_pq_values")]:
            if any(getattr(e, "key", None) == key for e in at.expander):
                open_expander(at, key)
                found.update(leaks(at))
        for answer in (WRONG_TWICE[number], "2/7", "cat"):
            at.text_input(key=f"ls_{number}_answer").input(answer)
            at.button(key=f"ls_{number}_check").click().run()
            found.update(leaks(at))
        at.text_input(key=f"ls_{number}_answer").input(str(ANSWERS[number]))
        at.button(key=f"ls_{number}_check").click().run()
        found.update(leaks(at))
        if number < 8:
            at.button(key="ls_next").click().run()
    assert "8 óƒ 8 çĥàþţéŕš đóñé" in at.get("progress")[0].proto.text  # the whole path walked, in the pseudo-language
    assert "[Çĥàþţéŕ 8: " in at.header[0].value
    at.button(key="ls_start_over").click().run()
    found.update(leaks(at))
    assert not found, found


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


# --- the lesson in another language ---------------------------------------------------------------------
LESSON = next(entry for entry in PAGES if entry.url_path == "start-here")


def sentences(texts: list[str]) -> set[str]:
    """The sentences of four words or more in ``texts`` (markdown marks and escapes off)."""
    found = set()
    for text in texts:
        for sentence in re.split(r"(?<=[.!?:;])\s+", text.replace("\\", "").replace("**", "")):
            if len(re.findall(r"[A-Za-z]{2,}", sentence)) >= 4:
                found.add(sentence.strip())
    return found


@pytest.mark.parametrize("code", [c for c in LANGUAGES if c != "en"])
def test_no_english_sentence_remains_on_the_lesson_in_another_language(code):
    english, other = open_in(LESSON.file, "en"), open_in(LESSON.file, code)
    for at in (english, other):
        at.button(key="ls_1_reveal").click().run()
        at.button(key="ls_1_step").click().run()
    words = po(code)
    assert other.title[0].value == words["Start here"]
    assert other.header[0].value == words["Chapter {number}: {title}"].format(number=1, title=words[
        "One token, one guess"])
    left = sentences(visible_texts(english) + chart_texts(english)) & sentences(visible_texts(other) +
                                                                                 chart_texts(other))
    assert not left, left


def test_a_german_box_reads_a_decimal_comma_and_the_german_word_for_undefined():
    at = open_in(LESSON.file, "de", params={"chapter": "3"})
    at.text_input(key="ls_3_answer").input("0,5")  # r(A) = 1/2
    at.button(key="ls_3_check").click().run()
    assert at.success and at.success[0].value.replace("\\", "").startswith("Richtig: ")
    at.text_input(key="ls_3_pred_0").input("0,375")  # Z = 3/8
    at.button(key="ls_3_reveal").click().run()
    table = next(m.value for m in at.markdown if "| Z |" in m.value).replace("\\", "")
    assert "| Z | 0,375 | 3/8 | richtig |" in table
    at = open_in(LESSON.file, "de", params={"chapter": "4"})
    at.text_input(key="ls_4_answer").input("undefiniert")
    at.button(key="ls_4_check").click().run()
    assert at.success and "r = 0/0" in at.success[0].value.replace("\\", "")


def test_a_right_answer_in_one_language_stays_right_when_the_lesson_is_read_back():
    from lab.models.lesson import Lesson

    saved = '{"v":1,"at":4,"ch":{"4":{"p":[],"rev":false,"ans":"indéfini","tries":1,"ok":true}}}'
    assert Lesson.from_text(saved).of(4).correct
    forged = '{"v":1,"at":4,"ch":{"4":{"p":[],"rev":false,"ans":"1/2","tries":1,"ok":true}}}'
    assert not Lesson.from_text(forged).of(4).correct


def test_numbers_on_the_lesson_are_written_the_language_s_way():
    german = open_in(LESSON.file, "de", params={"chapter": "7"})
    assert "α = 5/8 (0,625)" in "\n".join(m.value for m in german.markdown).replace("\\", "")
    german = open_in(LESSON.file, "de", params={"chapter": "1"})
    german.button(key="ls_1_reveal").click().run()
    german.button(key="ls_1_step").click().run()
    (line,) = [m.value for m in german.markdown if m.value.startswith("- ")]
    assert re.search(r"Zahl 0,\d{4} ", line), line  # the uniform number with a decimal comma
    spec = json.loads(german.get("plotly_chart")[0].proto.spec)
    assert spec["layout"]["separators"] == ",."  # the chart's ticks and hover numbers: 0,5
    english = open_in(LESSON.file, "en", params={"chapter": "1"})
    assert "separators" not in json.loads(english.get("plotly_chart")[0].proto.spec)["layout"]
    english = open_in(LESSON.file, "en", params={"chapter": "7"})
    assert "α = 5/8 (0.625)" in "\n".join(m.value for m in english.markdown).replace("\\", "")


def test_a_verdict_is_said_again_in_the_language_chosen_after_it():
    at = open_in(LESSON.file, "de", params={"chapter": "3"})
    at.text_input(key="ls_3_answer").input("1/5")
    at.button(key="ls_3_check").click().run()
    (german,) = [plain(w.value) for w in at.warning]
    assert german.startswith("Noch nicht.")
    at.selectbox(key=language.SELECT_KEY).set_value("fr").run()
    (french,) = [plain(w.value) for w in at.warning]
    assert french.startswith("Pas encore.") and at.header[0].value.startswith("Chapitre 3 : ")


# --- the Residual explorer in another language -------------------------------------------------------------
EXPLORER = next(entry for entry in PAGES if entry.url_path == "explorer")


def explorer_states(at: AppTest):
    """The explorer walked through the states a student meets, yielding after each: the editor open, a value that is
    not a number, an empty name, a sum that is not 1 (and Normalise on a column that cannot be), the table at its
    limit, the reveal, each scenario (Z = 0 and disjoint supports among them) revealed, and Reset."""
    yield at
    at.toggle(key="ex_edit").set_value(True).run()
    yield at
    at.text_input(key="ex_p_0").input("1/0")
    at.button(key="ex_apply").click().run()
    yield at
    at.text_input(key="ex_p_0").input("1/10")
    at.text_input(key="ex_name_1").input(" ")
    at.button(key="ex_apply").click().run()
    yield at
    at.text_input(key="ex_name_1").input("B")
    at.text_input(key="ex_p_0").input("2/10")
    at.text_input(key="ex_q_0").input("0")
    at.text_input(key="ex_q_1").input("0")
    at.text_input(key="ex_q_2").input("0")
    at.button(key="ex_normalise_q").click().run()  # every q is zero: cannot be normalised
    yield at
    at.button(key="ex_normalise_p").click().run()
    at.button(key="ex_reset").click().run()
    yield at
    for _ in range(24):
        at.button(key="ex_add").click().run()
    yield at  # 26 tokens: one more is refused
    at.button(key="ex_reset").click().run()
    at.toggle(key="ex_edit").set_value(False).run()
    for name in ("bernoulli-residual", "equal-distributions", "disjoint-support"):
        at.selectbox(key="ex_scenario").set_value(name).run()
        yield at
        at.slider(key="ex_r_0").set_value(0.5).run()
        at.button(key="ex_reveal").click().run()
        yield at


def test_under_the_pseudo_language_every_state_of_the_explorer_came_through_the_catalog():
    at = pseudo_app()
    at.switch_page(EXPLORER.file).run()
    found = {}
    kinds = set()
    for state in explorer_states(at):
        found.update(leaks(state))
        kinds |= {kind for kind in ("error", "info") if state.get(kind)}
    assert kinds == {"error", "info"}  # refusals and notes were seen, each through the catalog
    assert not found, found


def test_a_link_the_explorer_refuses_is_named_in_the_pseudo_language():
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state[language.CHOSEN] = PSEUDO
    at.query_params.update({"scenario": "nope", "r": "2,0,0", "z": "x", "tokens": "A,B", "p": "1/2,1/2", "q": "1,0,0"})
    at.run()
    at.switch_page(EXPLORER.file).run()
    assert len(at.warning) == 4 and not leaks(at), (at.warning, leaks(at))


@pytest.mark.parametrize("code", [c for c in LANGUAGES if c != "en"])
def test_no_english_sentence_remains_on_the_explorer_in_another_language(code):
    ats = [open_in(EXPLORER.file, c, params={"edit": "1", "r": "0,1/2,1/2"}) for c in ("en", code)]
    for at in ats:
        at.text_input(key="ex_p_0").input("1/0")
        at.button(key="ex_apply").click().run()
        at.text_input(key="ex_p_0").input("1/10")
        at.button(key="ex_reveal").click().run()
    english, other = ats
    assert other.title[0].value == po(code)["Residual explorer"]
    left = sentences(visible_texts(english) + chart_texts(english)) & sentences(visible_texts(other) +
                                                                                 chart_texts(other))
    assert not left, left


def test_a_german_explorer_reads_a_decimal_comma_and_writes_one():
    at = open_in(EXPLORER.file, "de", params={"edit": "1"})
    for key, value in (("ex_p_0", "0,1"), ("ex_p_1", "0,6"), ("ex_p_2", "0,3")):
        at.text_input(key=key).input(value)
    at.button(key="ex_apply").click().run()
    assert not at.error, [e.value for e in at.error]
    at.button(key="ex_reveal").click().run()
    assert "Z = 2/5 (0,4)" in "\n".join(m.value for m in at.markdown).replace("\\", "")
    at.text_input(key="ex_p_0").input("0,1,2")
    at.button(key="ex_apply").click().run()
    (error,) = [e.value.replace("\\", "") for e in at.error]
    assert error.startswith("Nicht angewendet: p: Token 'A': '0,1,2' ist keine Zahl"), error


# --- the Binomial lab in another language ----------------------------------------------------------------
BINOMIAL = next(entry for entry in PAGES if entry.url_path == "binomial-lab")


def binomial_states(at: AppTest):
    """The lab walked to the worked example and through its guide: revealed at n = 5, set to lab success p = 0.75 and
    n = 1, predicted, revealed, a product unreadable and one wrong, both right (the sum), then Reset."""
    yield at
    at.button(key="bl_reveal").click().run()
    yield at
    at.number_input(key="bl_p").set_value(0.75).run()
    yield at  # the bars hidden again
    at.number_input(key="bl_n").set_value(1).run()
    at.number_input(key="bl_pred_0").set_value(0.7).run()
    at.button(key="bl_reveal").click().run()
    yield at
    for b, c in (("1/0", ""), ("1/5", "0.1"), ("3/10", "0.1")):
        at.text_input(key="bl_zr_B").set_value(b)
        at.text_input(key="bl_zr_C").set_value(c)
        at.button(key="bl_products_check").click().run()
        yield at
    at.button(key="bl_reset").click().run()
    yield at


def test_under_the_pseudo_language_every_state_of_the_binomial_lab_came_through_the_catalog():
    at = pseudo_app().run()  # the app's first run first: the lab reruns on its own first run
    at.switch_page(BINOMIAL.file).run()
    found, kinds = {}, set()
    for state in binomial_states(at):
        found.update(leaks(state))
        kinds |= {kind for kind in ("error", "info", "success") if state.get(kind)}
    assert kinds == {"error", "info", "success"}
    assert not found, found


def test_a_link_the_binomial_lab_refuses_is_named_in_the_pseudo_language():
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state[language.CHOSEN] = PSEUDO
    at.query_params.update({"lab_p": "0.333", "n": "99", "pred": "2,0"})
    at.run()
    at.switch_page(BINOMIAL.file).run()
    assert len(at.warning) == 3 and not leaks(at), ([w.value for w in at.warning], leaks(at))


@pytest.mark.parametrize("code", [c for c in LANGUAGES if c != "en"])
def test_no_english_sentence_remains_on_the_binomial_lab_in_another_language(code):
    ats = [open_in(BINOMIAL.file, c, params={"lab_p": "0.75", "n": "1", "pred": "0.7,0.3"}) for c in ("en", code)]
    for at in ats:
        at.button(key="bl_reveal").click().run()
        at.text_input(key="bl_zr_B").set_value("1/5")
        at.button(key="bl_products_check").click().run()
    english, other = ats
    assert other.title[0].value == po(code)["Binomial lab"]
    assert other.error  # the product's refusal, in the language
    left = sentences(visible_texts(english) + chart_texts(english)) & sentences(visible_texts(other) +
                                                                                 chart_texts(other))
    assert not left, left


# --- the Sampling lab in another language ------------------------------------------------------------------
SAMPLING = next(entry for entry in PAGES if entry.url_path == "sampling")
MODEL_WORDS = re.compile(r"\b(the|cat|dog|sat|down|end)\b")  # the sentence models' own tokens: data, as typed


def sampling_states(at: AppTest):
    """The lab walked through what a student meets: run, a changed control (the run hidden), Z = 0, disjoint
    supports, the comparison run without a prediction, with a wrong and a right one, and a model that never stops."""
    yield at
    at.slider(key="sl_guess").set_value(0.4).run()
    at.button(key="sl_run").click().run()
    yield at
    at.number_input(key="sl_seed").set_value(2).run()
    yield at  # the run hidden: the controls changed
    for name in ("equal-distributions", "disjoint-support"):
        at.selectbox(key="sl_scenario").set_value(name).run()
        at.button(key="sl_run").click().run()
        yield at
    at.number_input(key="sl_cmp_n").set_value(500).run()
    at.button(key="sl_cmp_run").click().run()
    yield at  # not graded: no prediction
    for model, guess in (("markov-ab-end", "same-text"), ("markov-three", "same-law")):
        at.selectbox(key="sl_cmp_model").set_value(model).run()
        (radio,) = [r for r in at.radio if r.key.startswith("sl_cmp_guess::")]
        radio.set_value(guess).run()
        at.button(key="sl_cmp_run").click().run()
        at.expander(key="sl_cmp_every").open = True  # noqa: B010 - AppTest has no click for an expander
        yield at


def sampling_leaks(at: AppTest) -> dict[str, list[str]]:
    return {text: words for text, words in leaks(at).items() if untranslated_words(MODEL_WORDS.sub(" ", text))}


def test_under_the_pseudo_language_every_state_of_the_sampling_lab_came_through_the_catalog():
    at = pseudo_app()
    at.switch_page(SAMPLING.file).run()
    found, kinds = {}, set()
    for state in sampling_states(at):
        found.update(sampling_leaks(state))
        kinds |= {kind for kind in ("info", "success", "warning") if state.get(kind)}
    assert kinds == {"info", "success", "warning"}  # the hidden run, a right and a wrong prediction
    assert not found, found


def test_a_link_the_sampling_lab_refuses_is_named_in_the_pseudo_language():
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state[language.CHOSEN] = PSEUDO
    at.query_params.update({"sl_steps": "lots", "sl_cmp_model": "../etc"})
    at.run()
    at.switch_page(SAMPLING.file).run()
    assert len(at.warning) == 2 and not leaks(at), ([w.value for w in at.warning], leaks(at))


@pytest.mark.parametrize("code", [c for c in LANGUAGES if c != "en"])
def test_no_english_sentence_remains_on_the_sampling_lab_in_another_language(code):
    ats = [open_in(SAMPLING.file, c, params={"sl_cmp_n": "500"}) for c in ("en", code)]
    for at in ats:
        at.button(key="sl_run").click().run()
        (radio,) = [r for r in at.radio if r.key.startswith("sl_cmp_guess::")]
        radio.set_value("same-law").run()
        at.button(key="sl_cmp_run").click().run()
    english, other = ats
    assert other.title[0].value == po(code)["Sampling lab"]
    assert other.success  # the graded prediction, in the language
    english, other = ([MODEL_WORDS.sub("", text) for text in visible_texts(at) + chart_texts(at)] for at in ats)
    left = sentences(english) & sentences(other)
    assert not left, left


def test_a_german_sampling_lab_writes_its_numbers_with_a_decimal_comma():
    # bernoulli-residual: p = (1/10, 3/5, 3/10), q = (1/2, 3/10, 1/5), Z = 3/10 + 1/10 = 2/5; the guess 0.2: off by 0.2
    at = open_in(SAMPLING.file, "de", params={"sl_guess": "0.2"})
    at.button(key="sl_run").click().run()
    text = "\n".join(m.value for m in at.markdown).replace("\\", "")
    assert "Ihre Schätzung war 0,20; der exakte Anteil ist Z = 2/5 (0,4): daneben um 0,2." in text, text
    assert at.button(key="sl_run").label == "10.000 Schritte ausführen"
    assert [m.value for m in at.metric][:3] == ["0,20", "0,4120", "2/5 (0,4)"]  # 4,120 of 10,000 steps corrected


# --- Several drafts in another language --------------------------------------------------------------------
SEVERAL = next(entry for entry in PAGES if entry.url_path == "several-drafts")
# the rules' names, as the Rule list offers them (a link's value, the command line's word): names, not sentences
RULE_NAMES = re.compile(r"\b(with-replacement|without-replacement|top-k)\b")


def several_drafts_states(at: AppTest):
    """The page walked through what a student meets: the bars, a right and a wrong reveal, one candidate, top-k above
    the vocabulary (refused), typed p that does not sum to 1 and an empty box (refused), the tree stepped to its end
    and shown whole, each of its endings among three seeds, and a new tree."""
    yield at
    for i, v in enumerate((0.0, 0.75, 0.25)):
        at.slider(key=f"sd_pred_{i}").set_value(v)
    at.number_input(key="sd_pred_acc").set_value(0.8).run()
    at.button(key="sd_reveal").click().run()
    yield at  # right
    at.number_input(key="sd_k").set_value(3).run()
    at.button(key="sd_reveal").click().run()
    yield at  # wrong
    at.number_input(key="sd_k").set_value(1).run()
    at.button(key="sd_reveal").click().run()
    yield at
    at.selectbox(key="sd_rule").set_value("top-k").run()
    at.number_input(key="sd_k").set_value(4).run()
    at.button(key="sd_reveal").click().run()
    yield at  # above the vocabulary's 3 tokens
    at.text_input(key="sd_p").set_value("x=1/2,y=1/3")
    at.text_input(key="sd_q").set_value("x=1,y=0").run()
    yield at
    at.text_input(key="sd_p").set_value("").run()
    yield at
    at.text_input(key="sd_q").set_value("").run()
    for seed in (1, 2, 3):
        at.number_input(key="sd_seed").set_value(seed).run()
        at.button(key="sd_step").click().run()
        yield at
        at.button(key="sd_all").click().run()
        yield at
    at.button(key="sd_new").click().run()
    yield at


def test_under_the_pseudo_language_every_state_of_several_drafts_came_through_the_catalog():
    at = pseudo_app().run()  # the app's first run first: the page reruns on its own first run
    at.switch_page(SEVERAL.file).run()
    found, kinds, endings = {}, set(), set()
    for state in several_drafts_states(at):
        found.update({text: words for text, words in leaks(state).items()
                      if untranslated_words(RULE_NAMES.sub(" ", text))})
        kinds |= {kind for kind in ("error", "info", "success", "warning") if state.get(kind)}
        endings |= {m.value.split("(", 1)[-1][:12] for m in state.markdown if m.value.startswith("[Çóɱɱ")}
    assert kinds == {"error", "info", "success", "warning"}
    assert len(endings) >= 2, endings  # two different endings of a block were said
    assert not found, found


def test_a_link_several_drafts_refuses_is_named_in_the_pseudo_language():
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state[language.CHOSEN] = PSEUDO
    at.query_params.update({"sd_k": "9", "sd_rule": "beam", "sd_widths": "9,9", "sd_p": "x=2"})
    at.run()
    at.switch_page(SEVERAL.file).run()
    assert len(at.warning) == 4 and not leaks(at), ([w.value for w in at.warning], leaks(at))


@pytest.mark.parametrize("code", [c for c in LANGUAGES if c != "en"])
def test_no_english_sentence_remains_on_several_drafts_in_another_language(code):
    ats = [open_in(SEVERAL.file, c, params={"sd_widths": "2,2"}) for c in ("en", code)]
    for at in ats:
        at.number_input(key="sd_pred_acc").set_value(0.8).run()
        at.button(key="sd_reveal").click().run()
        at.button(key="sd_all").click().run()
    english, other = ats
    assert other.title[0].value == po(code)["Several drafts"]
    assert other.warning  # the graded prediction, in the language
    english, other = ([text for text in visible_texts(at) + chart_texts(at)] for at in ats)
    left = sentences(english) & sentences(other)
    assert not left, left


def test_a_german_several_drafts_page_writes_a_decimal_comma():
    # the hand case (tests/test_pages_several_drafts.py): two drafts with replacement keep one with probability 4/5
    at = open_in(SEVERAL.file, "de")
    for i, v in enumerate((0.0, 0.75, 0.25)):
        at.slider(key=f"sd_pred_{i}").set_value(v)
    at.number_input(key="sd_pred_acc").set_value(0.8).run()
    at.button(key="sd_reveal").click().run()
    (success,) = [s.value.replace("\\", "") for s in at.success]
    assert success == ("Richtig: p₂ = (A 0, B 3/4, C 1/4). Richtig: Ein Kandidat wird mit Wahrscheinlichkeit 4/5 (0,8) "
                       "behalten (Sie sagten 0,80)."), success


# --- Blocks in another language -----------------------------------------------------------------------------
BLOCKS = next(entry for entry in PAGES if entry.url_path == "blocks")
# the algorithms' names, as the Algorithm list offers them (a link's value, the command line's word)
VARIANT_NAMES = re.compile(r"\b(correct|[a-z]+(?:-[a-z]+)+)\b")


def blocks_states(at: AppTest):
    """The page walked through what a student meets: a block stepped test by test to its end (a rejection and its
    residual), a model that stops (its rules, a search for a block that ends there, a complete output), a mistake on
    show, a law too long to compute (refused), and the speed-up with and without a best K."""
    yield at
    for _ in range(5):
        at.button(key="bk_step").click().run()
        yield at
    at.selectbox(key="bk_model").set_value("markov-ab-end").run()
    at.button(key="bk_find_stop").click().run()
    at.button(key="bk_all").click().run()
    yield at
    at.number_input(key="bk_seed").set_value(1).run()
    at.number_input(key="bk_l").set_value(1).run()
    at.button(key="bk_find_stop").click().run()  # L = 1 and K = 3: can a block end at <end>?
    at.button(key="bk_all").click().run()
    yield at
    at.selectbox(key="bk_variant").set_value("bonus-after-stop").run()
    yield at
    at.selectbox(key="bk_model").set_value("markov-three").run()
    at.button(key="bk_all").click().run()
    yield at  # a mistake that needs a stop token, on a model without one
    at.selectbox(key="bk_variant").set_value("correct").run()
    at.selectbox(key="bk_model").set_value("eight-words").run()
    at.number_input(key="bk_k").set_value(8).run()
    at.number_input(key="bk_l").set_value(5).run()
    yield at  # too many sequences: refused by name
    at.slider(key="bk_alpha").set_value(1.0).run()
    at.slider(key="bk_c").set_value(0.1).run()
    yield at  # no best K


def test_under_the_pseudo_language_every_state_of_blocks_came_through_the_catalog():
    at = pseudo_app().run()
    at.switch_page(BLOCKS.file).run()
    found, kinds = {}, set()
    for state in blocks_states(at):
        found.update({text: words for text, words in leaks(state).items()
                      if untranslated_words(MODEL_WORDS.sub(" ", VARIANT_NAMES.sub(" ", text)))})
        kinds |= {kind for kind in ("error", "info", "warning") if state.get(kind)}
    assert kinds == {"error", "info", "warning"}
    assert not found, found


def test_a_link_blocks_refuses_is_named_in_the_pseudo_language():
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state[language.CHOSEN] = PSEUDO
    at.query_params.update({"bk_k": "99", "bk_variant": "nope", "bk_alpha": "2"})
    at.run()
    at.switch_page(BLOCKS.file).run()
    assert len(at.warning) == 3 and not leaks(at), ([w.value for w in at.warning], leaks(at))


@pytest.mark.parametrize("code", [c for c in LANGUAGES if c != "en"])
def test_no_english_sentence_remains_on_blocks_in_another_language(code):
    ats = [open_in(BLOCKS.file, c, params={"bk_model": "markov-sentences-end"}) for c in ("en", code)]
    for at in ats:
        at.button(key="bk_all").click().run()
    assert ats[1].title[0].value == po(code)["Blocks of drafts"]
    english, other = ([MODEL_WORDS.sub("", text) for text in visible_texts(at) + chart_texts(at)] for at in ats)
    left = sentences(english) & sentences(other)
    assert not left, left


def test_a_german_blocks_page_writes_a_decimal_comma():
    # α = 1/2, c = 1/2: the walltime improvement (1 − α^(K+1))/((1 − α)(Kc + 1)) is 1.5/1.5 = 1 at K = 1,
    # (1 − 1/8)/(1/2 · 2) = 0.875 at K = 2: the best K is 0 or 1 (both 1), and K = 2 is written 0,8750 in the table
    at = open_in(BLOCKS.file, "de", params={"bk_alpha": "0.5", "bk_c": "0.5"})
    texts = chart_texts(at)
    assert any("K = 2: 1,7500 Token, 0,8750×" in text for text in texts), texts


# --- Numerics in another language ---------------------------------------------------------------------------
NUMERICS = next(entry for entry in PAGES if entry.url_path == "numerics")
# what the page shows as a program writes it: dtypes, the processing's and a mistake's names, the build's values
CODE_WORDS = re.compile(r"`[^`]*`|\b(float64|float32|dtype|eps|softmax|top-[kp]|unprocessed-draft|numpy|Python|IEEE|"
                        r"binary64|binary32|fractions\.Fraction|residual_rtol|reconstruction_rtol|same-floats|"
                        r"p-rounded-up|q-rounded-up|r_float|r_exact|oops|inf|alpha|log|python|little|big)\b")


def numerics_states(at: AppTest):
    """The page walked through what an engineer meets: a logit that is not a number (refused, the last valid logits
    kept), a logit that is not finite, a token in one list only, the same logits for both (Z = 0), greedy and top-k
    settings, and the gap family down to where float32 loses the rejection branch."""
    yield at
    for text in ("A=2, B=oops, C=0, D=1", "A=2, B=inf, C=0, D=1", "A=2, B=1, C=0.5, E=1", ""):
        at.text_input(key="numerics_target_logits").set_value(text).run()
        yield at
    at.text_input(key="numerics_target_logits").set_value("A=1, B=2, C=0, D=0.5").run()
    yield at  # p = q: Z = 0
    at.text_input(key="numerics_target_logits").set_value("A=2, B=1, C=0.5, D=-1").run()
    at.number_input(key="numerics_temperature").set_value(0.0).run()
    at.number_input(key="numerics_top_k").set_value(0).run()
    yield at
    at.slider(key="numerics_gaps").set_value((1, 16)).run()
    yield at


def test_under_the_pseudo_language_every_state_of_numerics_came_through_the_catalog():
    at = pseudo_app()
    at.switch_page(NUMERICS.file).run()
    found, kinds = {}, set()
    for state in numerics_states(at):
        found.update({text: words for text, words in leaks(state).items()
                      if untranslated_words(CODE_WORDS.sub(" ", text.replace("\\", "")))})
        kinds |= {kind for kind in ("error", "info", "warning", "success") if state.get(kind)}
    assert kinds == {"error", "info", "warning", "success"}
    assert not found, found


@pytest.mark.parametrize("code", [c for c in LANGUAGES if c != "en"])
def test_no_english_sentence_remains_on_numerics_in_another_language(code):
    ats = [open_in(NUMERICS.file, c) for c in ("en", code)]
    for at in ats:
        at.text_input(key="numerics_target_logits").set_value("A=2, B=oops").run()
    assert ats[1].title[0].value == po(code)["Numerics"]
    english, other = ([CODE_WORDS.sub("", text) for text in visible_texts(at) + chart_texts(at)] for at in ats)
    left = sentences(english) & sentences(other)
    assert not left, left


def test_a_german_numerics_page_writes_a_decimal_comma():
    # the default: target logits A=2, B=1 after top-2, so p′(A) = e/(e + 1) = 0.731059 (6 significant digits)
    at = open_in(NUMERICS.file, "de")
    table = next(m.value.replace("\\", "") for m in at.markdown if m.value.startswith("| Token | p′"))
    assert "| A | 0,731059 |" in table, table
    (branches,) = [m.value for m in at.markdown if m.value.startswith("| Fall |")]
    # 0.1, 0.2 and 0.7 as float64 holds them, in 17 significant digits: a list of decimals separated by ";"
    assert "(0,10000000000000001; 0,20000000000000001; 0,69999999999999996)" in branches.replace("\\", "")


# --- Exercises in another language --------------------------------------------------------------------------
EXERCISES = next(entry for entry in PAGES if entry.url_path == "exercises")
EXERCISE_SECRET = "a test secret of the server, 32 chars"


def exercises_states(at: AppTest):
    """The page walked through what a student and a teacher meet: an answer that cannot be read, a wrong one twice
    (the worked solution opens), every hint, the branch question, the bars checked and moved, the results and a
    resume link, the Teacher tab with an address that is refused and the downloads, and a Z = 0 sheet."""
    from lab.teaching.exercises import generate_problems

    yield at
    for level in ("basic", "z0"):
        at.query_params["level"] = level
        at.run()
        key = f"{1}-{level}"
        for number, problem in enumerate(generate_problems(1, 5, level), start=1):
            answer = f"exq_answer_{key}_{number}"
            if problem.is_choice:
                at.radio(key=answer).set_value("rejection")
                at.button(key=f"exq_check_{key}_{number}").click().run()
                yield at
                continue
            for text in ("x/y", "7/8", "-1", "undefined"):
                at.text_input(key=answer).set_value(text)
                at.button(key=f"exq_check_{key}_{number}").click().run()
            yield at
            for _ in range(4):
                at.button(key=f"exq_hint_{key}_{number}").click().run()
            yield at
    tab = i18n.texts(PSEUDO)  # a tab is chosen by its label, in the page's language
    at.session_state["tab"] = tab("Predict the bars")
    at.run()
    at.slider(key="exq_bar_1-z0_1_A").set_value(0.5).run()
    at.button(key="exq_check_bars_1-z0_1").click().run()
    yield at
    at.slider(key="exq_bar_1-z0_1_A").set_value(0.25).run()
    yield at  # moved since the check
    at.session_state["tab"] = tab("Your results")
    at.run()
    at.button(key="exq_resume_start").click().run()
    yield at
    at.session_state["tab"] = tab("Teacher")
    at.run()
    at.button(key="exq_new_seed").click().run()
    at.text_input(key="exq_base_url").set_value("ftp://nowhere").run()
    yield at


def test_under_the_pseudo_language_every_state_of_exercises_came_through_the_catalog(monkeypatch):
    monkeypatch.setenv("RESIDUAL_LAB_SECRET", EXERCISE_SECRET)
    at = pseudo_app().run()
    at.switch_page(EXERCISES.file).run()
    found, kinds = {}, set()
    for state in exercises_states(at):
        found.update(leaks(state))
        kinds |= {kind for kind in ("error", "info", "success", "warning") if state.get(kind)}
    assert kinds == {"error", "info", "success", "warning"}
    assert not found, found


def test_a_link_exercises_refuses_is_named_in_the_pseudo_language():
    at = AppTest.from_file(APP, default_timeout=60)
    at.session_state[language.CHOSEN] = PSEUDO
    at.query_params.update({"seed": "-1", "level": "hard", "tab": "Answers"})
    at.run()
    at.switch_page(EXERCISES.file).run()
    assert len(at.warning) == 3 and not leaks(at), ([w.value for w in at.warning], leaks(at))


@pytest.mark.parametrize("code", [c for c in LANGUAGES if c != "en"])
def test_no_english_sentence_remains_on_exercises_in_another_language(code):
    ats = [open_in(EXERCISES.file, c, params={"level": "z0"}) for c in ("en", code)]
    for at in ats:
        for text in ("x/y", "7/8", "1/2"):
            at.text_input(key="exq_answer_1-z0_1").set_value(text)
            at.button(key="exq_check_1-z0_1").click().run()
        at.button(key="exq_hint_1-z0_1").click().run()
    assert ats[1].title[0].value == po(code)["Exercises"]
    assert ats[1].error  # the wrong answer's feedback, in the language
    english, other = ([text for text in visible_texts(at) + chart_texts(at)] for at in ats)
    left = sentences(english) & sentences(other)
    assert not left, left


def test_a_german_exercise_reads_the_german_word_for_undefined_and_keeps_its_tab_across_languages():
    # the Z = 0 level asks first for r(x), which is undefined when Z = 0 (p = q: no rejection can happen)
    at = open_in(EXERCISES.file, "de", params={"level": "z0"})
    at.text_input(key="exq_answer_1-z0_1").set_value("Undefiniert")
    at.button(key="exq_check_1-z0_1").click().run()
    (right,) = [s.value.replace("\\", "") for s in at.success]
    assert right == ("Richtig: Z = 0, es kann keine Ablehnung geben, also wäre r gleich 0/0: Es ist nicht "
                     "definiert."), right
    # a link names its tab in English (tab=Your+results): it opens that tab in every language
    at = open_in(EXERCISES.file, "de", params={"tab": "Your results"})
    assert at.session_state["tab"] == "Ihre Ergebnisse"
    assert any(w.label == "Meine Ergebnisse herunterladen (CSV)" for w in at.get("download_button"))
    at.selectbox(key=language.SELECT_KEY).set_value("fr").run()
    assert at.session_state["tab"] == "Vos résultats"  # the same tab, in French
    assert any(w.label == "Télécharger mes résultats (CSV)" for w in at.get("download_button"))


# --- Pitfalls in another language ---------------------------------------------------------------------------
PITFALLS = next(entry for entry in PAGES if entry.url_path == "pitfalls")
# a card's code, the projects and files its public reports name, and the engines' own argument names
PITFALL_NAMES = re.compile(r"\S+/\S+|\b(vLLM|SGLang|EAGLE|Medusa|NaN|PR|TreeSpeculativeSamplingTargetOnly|"
                           r"evaluate_posterior|epsilon|delta|exp|coin|argmax|H|c1|cj)\b")  # paths: a/b/c.py


def pitfalls_states(at: AppTest):
    """The page walked through what an engineer meets: guesses graded right and wrong, every variant's spoiler, the
    single step through every mistake, a model that stops and a stop-token mistake on one that does not, a choice too
    large to compute (refused, the last valid one kept), and the several-candidates cards revealed."""
    yield at
    choice = "bernoulli-residual::1::1::resample-from-p"
    for biased, gain in (("yes, biased", "A"), ("no, exact", "none (unbiased)")):
        at.radio(key=f"pit_guess_biased::{choice}").set_value(biased)
        at.selectbox(key=f"pit_guess_gain::{choice}").set_value(gain)
        at.button(key="pit_reveal").click().run()
        yield at
    open_expander(at, "pit_every")
    open_expander(at, "pit_every_step")
    yield at
    at.selectbox(key="pit_model").set_value("markov-ab-end").run()
    yield at
    at.selectbox(key="pit_model").set_value("markov-three").run()
    at.selectbox(key="pit_variant").set_value("bonus-after-stop").run()
    yield at
    at.selectbox(key="pit_model").set_value("eight-words").run()
    at.number_input(key="pit_block").set_value(8).run()
    at.number_input(key="pit_length").set_value(5).run()
    yield at
    for name in ("no-update", "typical-acceptance"):
        at.selectbox(key="pit_draft_variant").set_value(name).run()
        at.radio(key=f"pit_draft_guess::{name}").set_value("no, exact")
        at.button(key="pit_draft_reveal").click().run()
        yield at
    open_expander(at, "pit_rules")
    yield at


def test_under_the_pseudo_language_every_state_of_pitfalls_came_through_the_catalog():
    at = pseudo_app()
    at.switch_page(PITFALLS.file).run()
    found, kinds = {}, set()
    for state in pitfalls_states(at):
        found.update({text: words for text, words in leaks(state).items()
                      if untranslated_words(PITFALL_NAMES.sub(" ", text.replace("\\", "")))})
        kinds |= {kind for kind in ("error", "info", "success", "warning") if state.get(kind)}
    assert kinds == {"error", "info", "success", "warning"}
    assert not found, found


@pytest.mark.parametrize("code", [c for c in LANGUAGES if c != "en"])
def test_no_english_sentence_remains_on_pitfalls_in_another_language(code):
    ats = [open_in(PITFALLS.file, c) for c in ("en", code)]
    choice = "bernoulli-residual::1::1::resample-from-p"
    for at in ats:
        at.radio(key=f"pit_guess_biased::{choice}").set_value("yes, biased")
        at.selectbox(key=f"pit_guess_gain::{choice}").set_value("A")
        at.button(key="pit_reveal").click().run()
        at.radio(key="pit_draft_guess::no-update").set_value("yes, biased")
        at.button(key="pit_draft_reveal").click().run()
    assert ats[1].title[0].value == po(code)["Pitfalls"]
    assert ats[1].success  # the graded guesses, in the language
    english, other = ([text for text in visible_texts(at) + chart_texts(at)
                       if not text.startswith(("x ~", "r =", "for ", "u =", "q_used", "drafts", "cands", "excess"))]
                      for at in ats)  # the cards' code is code
    left = sentences(english) & sentences(other)
    assert not left, left


def test_a_german_pitfall_grade_names_the_distance_the_german_way():
    # resample-from-p on the worked example: its law is (7/50, 27/50, 8/25), 3/50 away from p (tests/
    # test_pages_pitfalls.py derives it by hand); A gains mass
    at = open_in(PITFALLS.file, "de")
    choice = "bernoulli-residual::1::1::resample-from-p"
    at.radio(key=f"pit_guess_biased::{choice}").set_value("yes, biased")
    at.selectbox(key=f"pit_guess_gain::{choice}").set_value("A")
    at.button(key="pit_reveal").click().run()
    (grade,) = [s.value.replace("\\", "") for s in at.success]
    assert grade == ("Beide Antworten richtig. Sie sagten verzerrt: richtig, seine Verteilung ist 3/50 von der des "
                     "Ziels entfernt (Totalvariation). Sie sagten, A gewinnt Masse: richtig, so ist es."), grade
    assert [m.value for m in at.metric] == ["3/50", "0,06"]


def test_a_german_list_of_logits_or_of_p_and_q_uses_semicolons_and_a_decimal_comma():
    # Numerics: the first logits are written the German way, and read: p′(A) = e/(e + 1) = 0,731059 after top-2
    at = open_in(NUMERICS.file, "de")
    assert at.text_input(key="numerics_target_logits").value == "A=2; B=1; C=0,5; D=-1"
    assert not at.error
    at.text_input(key="numerics_target_logits").set_value("A=2, B=1").run()  # two entries glued by a comma
    (error,) = [e.value.replace("\\", "") for e in at.error]
    assert "'A'" in error and "';'" in error, error  # named, and the separator said
    # English typed first, then German chosen: the list is written again the German way, not refused
    at = open_in(NUMERICS.file, "en")
    at.text_input(key="numerics_draft_logits").set_value("A=1, B=2, C=0.25, D=0.5").run()
    at.selectbox(key=language.SELECT_KEY).set_value("de").run()
    assert at.text_input(key="numerics_draft_logits").value == "A=1; B=2; C=0,25; D=0,5"
    assert not at.error
    # Several drafts: p and q typed with ";" between entries and "0,5" (p = q: no rejection, so the acceptance is 1)
    at = open_in(SEVERAL.file, "de")
    at.text_input(key="sd_p").set_value("x=0,5;y=0,5")
    at.text_input(key="sd_q").set_value("x=1/2;y=0,5").run()
    assert not at.error, [e.value for e in at.error]
    at.number_input(key="sd_pred_acc").set_value(1.0).run()
    at.button(key="sd_reveal").click().run()
    assert "Wahrscheinlichkeit 1 behalten" in at.success[0].value.replace("\\", "")


# --- the Class: a student's phone in its own language (the teacher's dashboard is not translated yet) ---------------
def class_app(code: str | None, params: dict[str, str]) -> AppTest:
    """The Class page opened with ``params`` as a link would, in ``code`` (None: the pseudo-language)."""
    return open_in(CLASS_PAGE, code or PSEUDO, params=params)


def join_label(code: str | None) -> str:
    return i18n.texts(code or PSEUDO)("Join")


def landing_states(at: AppTest, new):
    """The landing: a code no class has, a name too long, a character no code has, an empty name."""
    yield at
    for code, name in (("QQQQQQ", "Ann"), (new.code, "x" * 41), ("AB0DEF", "Ann"), (new.code, " ")):
        at.text_input(key="cls_join_code").set_value(code)
        at.text_input(key="cls_join_name").set_value(name)
        at.button(key=f"FormSubmitter:cls_join_form-{join_label(None)}").click().run()
        yield at


def student_states(data, code: str | None):
    """A student's page in every state a phone meets: no activity yet, a prediction open, a value that is not a
    number and one out of range, a saved prediction, a second round (vote again, with the first round's values), a
    lock, the reveal (the exact answer beside the prediction), an assignment with a wrong and a right answer and its
    solutions revealed, the end of the class, a waiting room, a removal and a link that is not valid."""
    from pagetest import predictors, send_trigger

    from lab.classroom import admission, classes, dashboards, roster

    def bars(at: AppTest) -> str:  # the open activity's bars (keyed by its id: a class started earlier has some)
        return next(key for key in predictors(at) if key.startswith("cls_bars_"))

    new = classes.create_class(data, "Period 3")
    token = admission.join_class(data, new.code, "Ann").student_token
    link = {"code": new.code, "student": token}
    at = class_app(code, link)
    yield at
    classes.open_activity(data, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    at = class_app(code, link)
    yield at
    for texts in (["x", "1/4"], ["2", "1/4"], ["0.7", "3/10"]):
        send_trigger(at, bars(at), "submit", texts)
        yield at
    classes.vote_again(data, new.code, new.teacher_token)
    at = class_app(code, link)
    yield at
    send_trigger(at, bars(at), "submit", ["0.75", "0.25"])
    classes.lock(data, new.code, new.teacher_token)
    at = class_app(code, link)
    yield at
    classes.reveal(data, new.code, new.teacher_token)
    at = class_app(code, link)
    yield at
    classes.open_activity(data, new.code, new.teacher_token, "predict", {"source": "second-target:bernoulli-residual"})
    classes.reveal(data, new.code, new.teacher_token)
    at = class_app(code, link)
    yield at
    classes.open_activity(data, new.code, new.teacher_token, "assignment", {"seed": 12, "level": "zeros", "count": 2})
    at = class_app(code, link)
    for text in ("x/y", "7/8"):
        box = next(b for b in at.text_input if b.key.startswith("cls_ans_") and b.key.endswith("_1"))
        box.set_value(text)
        submit = next(b for b in at.button if b.key.startswith("FormSubmitter:cls_ans_form_") and "_1-" in b.key)
        submit.click().run()
        yield at
    classes.reveal(data, new.code, new.teacher_token)
    at = class_app(code, link)
    yield at
    admission.set_expected_size(data, new.code, new.teacher_token, 1)
    waiting = admission.join_class(data, new.code, "Bea").student_token
    yield class_app(code, {"code": new.code, "student": waiting})
    student_id = next(s.id for s in dashboards.dashboard(data, new.code, new.teacher_token).students if s.name == "Ann")
    roster.remove_student(data, new.code, new.teacher_token, student_id)
    yield class_app(code, link)
    yield class_app(code, {"code": new.code, "student": "A" * 22})
    other = classes.create_class(data)
    other_token = admission.join_class(data, other.code, "Cy").student_token
    classes.end_class(data, other.code, other.teacher_token)
    yield class_app(code, {"code": other.code, "student": other_token})


def test_under_the_pseudo_language_every_state_of_a_student_s_class_page_came_through_the_catalog(data):
    from lab.classroom import classes

    new = classes.create_class(data)
    found, kinds = {}, set()
    for state in [*landing_states(class_app(None, {}), new), *student_states(data, None)]:
        found.update(leaks(state))
        kinds |= {kind for kind in ("error", "info", "success", "warning") if state.get(kind)}
    assert kinds == {"error", "info", "success"}
    assert not found, found


def test_a_join_link_and_a_refused_join_are_said_in_the_pseudo_language(data):
    from lab.classroom import classes, teacher_link

    new = classes.create_class(data)
    key = teacher_link.check_teacher(data, new.code, new.teacher_token).join_key
    at = class_app(None, {"code": new.code, "join": key})
    assert at.caption and not leaks(at), leaks(at)
    at.text_input(key="cls_join_name").set_value("\u202eAnn")
    at.button(key=f"FormSubmitter:cls_join_form-{join_label(None)}").click().run()
    assert at.error and not leaks(at), leaks(at)


@pytest.mark.parametrize("code", [c for c in LANGUAGES if c != "en"])
def test_no_english_sentence_remains_on_a_student_s_class_page_in_another_language(data, code):
    english, other = (list(student_states(data, c)) for c in ("en", code))
    assert len(english) == len(other)
    left = set()
    for at_en, at_other in zip(english, other):
        left |= sentences(visible_texts(at_en) + chart_texts(at_en)) & sentences(
            visible_texts(at_other) + chart_texts(at_other))
    assert other[0].title[0].value == po(code)["Class"]
    assert not left, left


def test_a_german_phone_reads_and_writes_a_decimal_comma_in_a_class_projected_in_english(data):
    """The class's projector follows the teacher (English here), while a German phone writes 0,70 and reads 0,7 as
    7/10 (and 3/10 as ever); the revealed answer is written 3/4 (0,75)."""
    from fractions import Fraction

    from pagetest import predictors, send_trigger

    from lab.classroom import admission, answers, classes

    new = classes.create_class(data)
    classes.open_activity(data, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    token = admission.join_class(data, new.code, "Anna").student_token
    at = class_app("de", {"code": new.code, "student": token})
    words = po("de")
    send_trigger(at, "cls_bars_1", "submit", ["0,7", "3/10"])
    assert answers.student_state(data, new.code, token).prediction == (Fraction(7, 10), Fraction(3, 10))
    assert [plain(s.value) for s in at.success][0].startswith(words["Saved at {time}. You can change it until the "
                                                                    "vote is locked or the answer revealed."][:12])
    at = class_app("de", {"code": new.code, "student": token})
    drawn = predictors(at)["cls_bars_1"]
    assert drawn["form_values"] == ["0,70", "0,30"] and drawn["decimal_comma"]
    assert drawn["form_submit"] == words["Submit"]
    assert any("0,70 für r(B), 0,30 für r(C)" in c.value.replace("\\", "") for c in at.caption)
    classes.reveal(data, new.code, new.teacher_token)
    at = class_app("de", {"code": new.code, "student": token})
    table = next(m.value for m in at.markdown if m.value.startswith(f"| {words['value']} |")).replace("\\", "")
    assert "3/4 (0,75)" in table and "1/4 (0,25)" in table
    from lab.classroom import versions

    key = versions.stored_class_version(data, new.code).display_key
    projector = open_linked_page("lab/views/live_class/projector.py", {"code": new.code, "display": key})
    assert not projector.exception and projector.session_state[language.THIS_RUN] == "en"


# --- the projector: the teacher's language (its link's) ------------------------------------------------------------
PROJECTOR_PAGE = "lab/views/live_class/projector.py"


def projector_app(code: str | None, params: dict[str, str]) -> AppTest:
    """The projector opened with ``params`` as a link would, in ``code`` (None: the pseudo-language)."""
    return open_in(PROJECTOR_PAGE, code or PSEUDO, params=params)


def projector_states(data, code: str | None):
    """The big screen in every state a room sees: waiting for an activity, a question open, the responses shown, the
    reveal, a second round beside the first (shown, then revealed), a question with many tokens revealed, an
    assignment, the end of the class, and a link without its key or with a wrong one."""
    from lab.classroom import admission, answers, classes, versions

    new = classes.create_class(data)
    key = versions.stored_class_version(data, new.code).display_key
    link = {"code": new.code, "display": key}
    yield projector_app(code, link)
    classes.open_activity(data, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    activity = answers.student_state(data, new.code, admission.join_class(data, new.code, "Zed").student_token)
    tokens = [admission.join_class(data, new.code, n).student_token for n in ("Ann", "Bob", "Cat")]
    for token, values in zip(tokens, (["0.75", "0.25"], ["0.5", "0.5"], ["0.6", "0.4"])):
        answers.submit_prediction(data, new.code, token, activity.activity.id, values)
    yield projector_app(code, link)
    classes.show_responses(data, new.code, new.teacher_token)
    yield projector_app(code, link)
    classes.reveal(data, new.code, new.teacher_token)
    yield projector_app(code, link)
    classes.open_activity(data, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    second = answers.student_state(data, new.code, tokens[0]).activity.id
    for token in tokens:
        answers.submit_prediction(data, new.code, token, second, ["0.5", "0.5"])
    classes.vote_again(data, new.code, new.teacher_token)
    answers.submit_prediction(data, new.code, tokens[1], second, ["0.75", "0.25"], round_number=2)
    classes.show_responses(data, new.code, new.teacher_token)
    yield projector_app(code, link)
    classes.reveal(data, new.code, new.teacher_token)
    yield projector_app(code, link)
    classes.open_activity(data, new.code, new.teacher_token, "predict", {"source": "pet-words"})
    classes.reveal(data, new.code, new.teacher_token)
    yield projector_app(code, link)
    classes.open_activity(data, new.code, new.teacher_token, "assignment", {"seed": 12, "level": "zeros", "count": 2})
    yield projector_app(code, link)
    classes.end_class(data, new.code, new.teacher_token)
    yield projector_app(code, link)
    yield projector_app(code, {"code": new.code, "display": "wrong"})
    yield projector_app(code, {"code": new.code})


def test_under_the_pseudo_language_every_state_of_the_projector_came_through_the_catalog(data):
    found = {}
    for state in projector_states(data, None):
        found.update(leaks(state))
    assert not found, found


@pytest.mark.parametrize("code", [c for c in LANGUAGES if c != "en"])
def test_no_english_sentence_remains_on_the_projector_in_another_language(data, code):
    english, other = (list(projector_states(data, c)) for c in ("en", code))
    left = set()
    for at_en, at_other in zip(english, other):
        left |= sentences(visible_texts(at_en) + chart_texts(at_en)) & sentences(
            visible_texts(at_other) + chart_texts(at_other))
    assert not left, left


# --- the teacher's dashboard ------------------------------------------------------------------------------------------
def teacher_states(data, code: str | None):
    """The dashboard in the states a teacher meets: the form that opens an activity (each kind, the teacher's own
    question refused and previewed), the plan, a prediction open with its countdown, answered, revealed (the class's
    closeness and its wrong pattern), a refused press, two rounds, an assignment's results, a student waiting beyond
    the expected size, the student list with one removed, the class ended, and a teacher link that opens nothing."""
    from lab.classroom import admission, answers, classes, dashboards

    new = classes.create_class(data, "P3")  # names are data: none the checks read as words
    link = {"code": new.code, "teacher": new.teacher_token}
    at = class_app(code, link)
    yield at
    at.radio(key="cls_kind").set_value("Your own question").run()
    p, q = ("1/2; 1/2", "1/2; 1/2") if code in ("de", "es", "fr", "pt-BR") else ("1/2, 1/2", "1/2, 1/2")
    at.text_input(key="cls_own_tokens").set_value("X, Y")
    at.text_input(key="cls_own_p").set_value(p)
    at.text_input(key="cls_own_q").set_value(q).run()
    yield at  # p = q: refused by name
    at.text_input(key="cls_own_q").set_value(q.replace("1/2", "1/4", 1).replace("1/2", "3/4", 1)).run()
    yield at  # the preview
    at.radio(key="cls_kind").set_value("Exercises assignment").run()
    yield at
    at.radio(key="cls_kind").set_value("Predict the bars").run()
    at.selectbox(key="cls_timer").set_value(60).run()
    at.button(key="cls_plan_add").click().run()
    yield at
    at.button(key="cls_open").click().run()
    tokens = [admission.join_class(data, new.code, n).student_token for n in ("A1", "B2", "C3")]
    activity = answers.student_state(data, new.code, tokens[0]).activity.id
    for token, values in zip(tokens, (["0.75", "0.25"], ["0.5", "0.5"], ["0.6", "0.4"])):
        answers.submit_prediction(data, new.code, token, activity, values)
    at = class_app(code, link)
    yield at
    at.button(key="cls_show").click().run()
    at.button(key="cls_reveal").click().run()
    yield at
    at.button(key="cls_vote_again").click().run()
    yield at  # refused: the answer is revealed
    classes.open_activity(data, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    second = answers.student_state(data, new.code, tokens[0]).activity.id
    for token in tokens:
        answers.submit_prediction(data, new.code, token, second, ["0.5", "0.5"])
    classes.vote_again(data, new.code, new.teacher_token)
    answers.submit_prediction(data, new.code, tokens[1], second, ["0.75", "0.25"], round_number=2)
    classes.lock(data, new.code, new.teacher_token)
    classes.reveal(data, new.code, new.teacher_token)
    yield class_app(code, link)
    classes.open_activity(data, new.code, new.teacher_token, "assignment", {"seed": 12, "level": "zeros", "count": 2})
    admission.set_expected_size(data, new.code, new.teacher_token, 3)
    admission.join_class(data, new.code, "D4")
    at = class_app(code, link)
    at.toggle(key="cls_show_students").set_value(True).run()
    yield at
    ann = next(s.id for s in dashboards.dashboard(data, new.code, new.teacher_token).students if s.name == "A1")
    at.button(key=f"cls_remove_{ann}").click().run()
    yield at
    classes.end_class(data, new.code, new.teacher_token)
    yield class_app(code, link)
    yield class_app(code, {"code": new.code, "teacher": "forged"})


def test_under_the_pseudo_language_every_state_of_the_teacher_s_dashboard_came_through_the_catalog(data):
    found, kinds = {}, set()
    for state in teacher_states(data, None):
        found.update(leaks(state))
        kinds |= {kind for kind in ("error", "info", "success", "warning") if state.get(kind)}
    assert {"error", "info", "warning"} <= kinds
    assert not found, found


@pytest.mark.parametrize("code", [c for c in LANGUAGES if c != "en"])
def test_no_english_sentence_remains_on_the_teacher_s_dashboard_in_another_language(data, code):
    english, other = (list(teacher_states(data, c)) for c in ("en", code))
    left = set()
    for at_en, at_other in zip(english, other):
        left |= sentences(visible_texts(at_en) + chart_texts(at_en)) & sentences(
            visible_texts(at_other) + chart_texts(at_other))
    assert not left, left
