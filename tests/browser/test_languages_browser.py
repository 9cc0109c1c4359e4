"""The languages in a browser (what AppTest cannot see): ``<html lang dir>`` follow the page's language (WCAG 3.1.1),
a class's phones each in their browser's language while its projector speaks the teacher's,
axe finds nothing in any language, Arabic flows right to left without covering the page on a phone, and the
menu changes the language and the link."""

from __future__ import annotations

import pytest
from test_accessibility import axe_violations, structure_problems

from browserlib import DESKTOP, PHONE, app_and_class_engine, goto, wait_idle
from lab.classroom import admission, answers, classes, versions
from lab.i18n import LANGUAGES, texts

DOCUMENT_JS = """() => {
  const main = document.querySelector('[data-testid=stMain]');
  const notice = document.querySelector('[class*=st-key-ui-lang-frame]');
  return {lang: document.documentElement.lang, dir: document.documentElement.dir, main: main.lang || '',
          notice: notice ? [notice.lang, notice.dir] : null, h1: document.querySelector('h1').textContent};
}"""


def document_language(page) -> dict:
    page.wait_for_timeout(300)  # the language's observer applies it on the next animation frame
    return page.evaluate(DOCUMENT_JS)


@pytest.mark.parametrize("code", list(LANGUAGES))
def test_every_language_marks_the_page_and_axe_finds_nothing(browser, app_url, code):
    language = LANGUAGES[code]
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    try:
        # the Glossary; the lesson at its bar predictor; the explorer's answer, its charts and tables
        for translated in ("glossary", "?chapter=5", "explorer?reveal=1"):
            goto(page, f"{app_url}/{translated}{'&' if '?' in translated else '?'}lang={code}")
            found = document_language(page)
            assert (found["lang"], found["dir"], found["main"], found["notice"]) == (code, language.direction, "",
                                                                                     None)
            problems = axe_violations(page) + structure_problems(page)
            assert not problems, f"{translated}:\n" + "\n".join(problems)
            if translated == "?chapter=5":  # the bar predictor's scale in the language's decimal mark
                ticks = page.evaluate("() => [...document.querySelectorAll('.rl-bp-tick')].map(t => t.textContent)")
                assert ticks == (["0", "0,2", "0,4", "0,6", "0,8", "1"] if language.decimal_comma else
                                 ["0", "0.2", "0.4", "0.6", "0.8", "1"]), ticks
        goto(page, f"{app_url}/class?lang={code}")  # the Class's landing: joining, and starting a class
        found = document_language(page)
        assert (found["lang"], found["dir"], found["main"], found["notice"]) == (code, language.direction, "", None)
        problems = axe_violations(page) + structure_problems(page)
        assert not problems, "\n".join(problems)
    finally:
        context.close()


# the tools translated after the lesson, each in a state that shows its results, in the right-to-left language (the
# others share English's markup, which tests/browser/test_accessibility.py checks state by state; the
# pseudo-language's AppTest walks check their words)
TOOLS = ("sampling?sl_steps=1000", "blocks?bk_model=markov-ab-end", "several-drafts", "pitfalls", "exercises",
         "numerics")


def test_the_translated_tools_in_arabic_mark_the_page_and_axe_finds_nothing(browser, app_url):
    code = "ar"
    language = LANGUAGES[code]
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    try:
        for tool in TOOLS:
            goto(page, f"{app_url}/{tool}{'&' if '?' in tool else '?'}lang={code}")
            if tool.startswith("sampling"):  # its results: the metrics, the charts, the tables
                page.locator(".st-key-sl_run button").click()
                wait_idle(page)
            found = document_language(page)
            assert (found["lang"], found["dir"], found["main"], found["notice"]) == (code, language.direction, "",
                                                                                     None), tool
            problems = axe_violations(page) + structure_problems(page)
            assert not problems, f"{tool}:\n" + "\n".join(problems)
    finally:
        context.close()


def test_arabic_on_a_phone_flows_right_to_left_and_the_closed_menu_covers_nothing(browser, app_url):
    """The title starts at the right; nothing scrolls sideways; the closed menu covers nothing; the lesson's bars keep
    their left-to-right order (B before C), as its charts do."""
    context = browser.new_context(viewport=PHONE)
    page = context.new_page()
    try:
        goto(page, f"{app_url}/glossary?lang=ar")
        found = page.evaluate("""() => {
          const h1 = document.querySelector('h1').getBoundingClientRect();
          const hit = document.elementFromPoint(40, 400);
          return {width: innerWidth, page: document.documentElement.scrollWidth, h1right: h1.right, h1left: h1.left,
                  covered: !!(hit && hit.closest('[data-testid=stSidebar]'))};
        }""")
        assert found["page"] <= found["width"], found
        assert found["width"] - found["h1right"] < 40 and not found["covered"], found  # the title starts at the right
        goto(page, f"{app_url}/?chapter=5&lang=ar")
        bars = page.evaluate("""() => [...document.querySelectorAll('.rl-bp-names > *')]
            .map(n => [n.textContent, n.getBoundingClientRect().left])""")
        assert [name for name, _ in sorted(bars, key=lambda bar: bar[1])] == ["r(B)", "r(C)"], bars
        assert page.evaluate("() => document.documentElement.scrollWidth") <= 390
    finally:
        context.close()


def test_the_menu_changes_the_language_the_link_and_html_lang(browser, app_url):
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    try:
        goto(page, f"{app_url}/glossary")
        assert document_language(page)["lang"] == "en"
        page.get_by_role("combobox", name="Language").click()
        page.get_by_role("option", name="Deutsch").click()
        wait_idle(page)
        found = document_language(page)
        assert (found["lang"], found["h1"]) == ("de", "Glossar")
        assert "lang=de" in page.url
        page.locator("[data-testid=stSidebarNavLink]").last.click()  # the Class, from the menu: German too
        wait_idle(page)
        found = document_language(page)
        assert (found["lang"], found["main"], found["h1"]) == ("de", "", "Kurs")
        assert "lang=de" in page.url
    finally:
        context.close()


def test_the_lesson_in_german_announces_in_german_and_keeps_focus_by_keyboard(page, app_url):
    """The reveal is announced in the page's language, and keyboard focus moves to the translated headings (found by
    their text) as it does in English (tests/browser/test_accessibility.py)."""
    from test_accessibility import lesson_keyboard_walk

    announced, focused = lesson_keyboard_walk(page, f"{app_url}/?lang=de", "Auflösen", "Erst die Vorhersage",
                                              "Weiter →")
    assert announced.startswith("Aufgelöst: Ein Vorschlag wird mit Wahrscheinlichkeit")
    assert focused == "Kapitel 2: Warum behaltene Vorschläge min(p, q) ergeben"


@pytest.fixture(scope="module")
def class_app(tmp_path_factory):
    with app_and_class_engine(tmp_path_factory.mktemp("languages")) as app:
        yield app


def test_a_class_with_a_german_phone_an_arabic_phone_and_the_projector_in_english(browser, class_app):
    """One class: a phone whose browser speaks German (no ?lang= in its link) joins, predicts 0,7 and sees the reveal
    in German; a phone in Arabic flows right to left; the projector, opened from an English dashboard, speaks English.
    axe finds nothing on any of them."""
    base, engine = class_app
    new = classes.create_class(engine, "Languages")
    classes.open_activity(engine, new.code, new.teacher_token, "predict", {"source": "worked-example"})
    german, arabic = (admission.join_class(engine, new.code, name).student_token for name in ("Anna", "Amal"))
    de = texts("de")
    phones = []
    try:
        for locale, token in (("de-DE", german), ("ar-EG", arabic)):
            context = browser.new_context(viewport=PHONE, locale=locale, has_touch=True, is_mobile=True)
            phones.append(context)
            phone = context.new_page()
            goto(phone, f"{base}/class?code={new.code}&student={token}")
            found = document_language(phone)
            if locale == "de-DE":
                assert (found["lang"], found["dir"], found["h1"]) == ("de", "ltr", de("Class"))
                phone.get_by_role("textbox", name=f"{de('Predict')} r(B)").fill("0,7")
                phone.get_by_role("textbox", name=f"{de('Predict')} r(C)").fill("0,3")
                phone.get_by_role("button", name=de("Submit")).click()
                wait_idle(phone)
                assert phone.get_by_text("0,70 für r(B), 0,30 für r(C)").count() >= 1
                saved = answers.student_state(engine, new.code, german).prediction
                assert [str(v) for v in saved] == ["7/10", "3/10"]
            else:
                assert (found["lang"], found["dir"], found["h1"]) == ("ar", "rtl", texts("ar")("Class"))
            problems = axe_violations(phone) + structure_problems(phone)
            assert not problems, f"{locale}:\n" + "\n".join(problems)
        classes.reveal(engine, new.code, new.teacher_token)
        german_phone = phones[0].pages[0]
        german_phone.get_by_text("3/4 (0,75)").first.wait_for(timeout=15000)  # the reveal comes by itself
        key = versions.stored_class_version(engine, new.code).display_key
        projector = browser.new_context(viewport=DESKTOP).new_page()
        goto(projector, f"{base}/projector?code={new.code}&display={key}")
        found = document_language(projector)
        assert (found["lang"], found["dir"], found["main"], found["notice"]) == ("en", "ltr", "", None)
        assert projector.get_by_text("Exact answer:").count() >= 1
        problems = axe_violations(projector) + structure_problems(projector)
        assert not problems, "\n".join(problems)
        projector.context.close()
    finally:
        for context in phones:
            context.close()


SLIDERS_JS = """() => [...document.querySelectorAll('[data-testid=stSlider]')].map(s => [
  s.querySelector('[data-testid=stSliderThumbValue]')?.textContent,
  s.querySelector('input[type=range]')?.getAttribute('aria-valuetext')])"""


def test_streamlit_s_sliders_write_a_decimal_comma_in_german_and_a_point_in_english(browser, app_url):
    """Streamlit's own sliders format their values in the browser (a printf pattern, no decimal comma): the page writes
    0,25 on the thumb and for a screen reader where its language writes a decimal comma, also after a key moves it."""
    context = browser.new_context(viewport=DESKTOP)
    page = context.new_page()
    try:
        for code, mark in (("de", ","), ("en", ".")):
            goto(page, f"{app_url}/explorer?lang={code}")
            page.wait_for_timeout(300)
            sliders = [s for s in page.evaluate(SLIDERS_JS) if s[0] and any(ch.isdigit() for ch in s[0])]
            assert sliders and all(mark in value for value, _said in sliders), (code, sliders)
            if code == "de":  # (in English a screen reader reads the number itself, aria-valuenow)
                assert all(said == value for value, said in sliders), sliders
        goto(page, f"{app_url}/explorer?lang=de")
        before = page.evaluate(SLIDERS_JS)[0][0]
        page.locator("[data-testid=stSlider] input[type=range]").first.focus()
        page.keyboard.press("ArrowRight")
        page.wait_for_timeout(800)
        value, said = page.evaluate(SLIDERS_JS)[0]
        assert value != before and value == said and "," in value and "." not in value, (before, value, said)
    finally:
        context.close()
