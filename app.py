"""Residual Lab entry point: a router only. Each page is a thin view in lab/views/ (the list: lab/views/shell.py)."""

import pandas  # noqa: F401 - before any page: threads importing it lazily at once can see it half-initialised
import streamlit as st

from lab.views import patches, shell
from lab.views.live_class import holding
from lab.views.ui import accessibility, language
from lab.views.ui.presentation import apply_presentation_style, is_projector_link, presentation_toggle

patches.install_all()  # each patch of a library's internals once per process, where its library allows it
# before the navigation: with the page's icon sent only after it, the browser fetches the navigation's material
# icons from a public font server (tests/browser/test_hostile_links_browser.py); the title follows the navigation
st.set_page_config(page_title=shell.APP_TITLE, page_icon=shell.FAVICON, layout="wide")
lang = language.choose()  # ?lang=, else the session's choice, else the browser's language (lab.views.ui.language)
projector = is_projector_link()  # the projector view: no toggle and no navigation on the big screen
held = None if projector else holding.running_class()  # a joined student's running class: the class only
# the bar above the page: the language menu, and the presentation toggle (larger text and charts, no sidebar,
# reveals on press; not offered to a student held by a class)
presenting = not projector and presentation_toggle(toggle=held is None)
page = st.navigation(
    shell.pages(class_only=held is not None, language=lang),
    position="hidden" if projector else "top" if presenting else "sidebar",
)
st.set_page_config(page_title=shell.tab_title(page))  # "Binomial lab · Residual Lab": each page its own title
apply_presentation_style()
language.keep_in_link()  # after the navigation (which clears a page's parameters)
translated = shell.entry_of(page).translated
language.page_speaks(translated)  # the page body's words: the chosen language's, or English until it is translated
language.mark_document(translated)  # <html lang dir>; an untranslated page's main part marked as English
language.refusal()  # an unknown ?lang=, refused by name
if not translated and not projector:
    language.not_translated_notice()  # in the chosen language: the page below is in English
accessibility.scroll_boxes()  # a table wider than the screen scrolls in its own box: a tab stop
if held is not None and page.url_path != shell.CLASS_URL_PATH:
    holding.in_progress(held, page.title)  # instead of a page that could answer the class's question
else:
    page.run()
