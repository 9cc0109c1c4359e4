"""Residual Lab entry point: a router only. Each page is a thin view in lab/views/ (the list: lab/views/shell.py)."""

import pandas  # noqa: F401 - see below
import streamlit as st

from lab.views import shell, widget_guard
from lab.views.presentation import apply_presentation_style, is_projector_link, presentation_toggle

# The browser-tab icon is a file shipped with the app: a ":material/…" page icon makes every browser fetch it
# from a public font server (a privacy leak, and a broken icon in an offline classroom), and an emoji shows as an
# empty box where no emoji font is installed. The ":material/…" icons of the navigation are drawn with the font
# Streamlit ships (no request; only a page icon is fetched as an image), so they stay. tests/browser/
# test_hostile_links_browser.py checks that no request leaves the app's origin on any page.
# pandas is imported by the entry point, before any page runs, because plotly and st.table import it lazily:
# when many students' pages draw their first chart or table at the same moment (a class joining or a reveal
# right after a server start), plotly could see a half-initialised pandas module from another session's
# thread and fail (AttributeError: partially initialized module 'pandas'; seen in the Class browser test).
widget_guard.install()  # widget values a browser never sends: replaced before Streamlit deserializes them
st.set_page_config(page_title=shell.APP_TITLE, page_icon=shell.FAVICON, layout="wide")
projector = is_projector_link()  # the projector view: no toggle and no navigation on the big screen
presenting = not projector and presentation_toggle()  # larger text and charts, no sidebar, reveals on press
page = st.navigation(shell.pages(), position="hidden" if projector else "top" if presenting else "sidebar")
st.set_page_config(page_title=shell.tab_title(page))  # "Binomial lab · Residual Lab": each page its own title
apply_presentation_style()
page.run()
