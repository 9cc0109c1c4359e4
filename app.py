"""Residual Lab entry point: a router only. Each page is a thin view in lab/views/ (the list: lab/views/shell.py)."""

import pandas  # noqa: F401 - before any page: threads importing it lazily at once can see it half-initialised
import streamlit as st

from lab.views import patches, shell
from lab.views.live_class import holding
from lab.views.ui import accessibility
from lab.views.ui.presentation import apply_presentation_style, is_projector_link, presentation_toggle

patches.install_all()  # each patch of a library's internals once per process, where its library allows it
# before the navigation: with the page's icon sent only after it, the browser fetches the navigation's material
# icons from a public font server (tests/browser/test_hostile_links_browser.py); the title follows the navigation
st.set_page_config(page_title=shell.APP_TITLE, page_icon=shell.FAVICON, layout="wide")
projector = is_projector_link()  # the projector view: no toggle and no navigation on the big screen
held = None if projector else holding.running_class()  # a joined student's running class: the class only
# larger text and charts, no sidebar, reveals on press (not offered to a student held by a class)
presenting = not projector and held is None and presentation_toggle()
page = st.navigation(
    shell.pages(class_only=held is not None), position="hidden" if projector else "top" if presenting else "sidebar"
)
st.set_page_config(page_title=shell.tab_title(page))  # "Binomial lab · Residual Lab": each page its own title
apply_presentation_style()
accessibility.scroll_boxes()  # a table wider than the screen scrolls in its own box: a tab stop
if held is not None and page.url_path != shell.CLASS_URL_PATH:
    holding.in_progress(held, page.title)  # instead of a page that could answer the class's question
else:
    page.run()
