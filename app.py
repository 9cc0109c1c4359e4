"""Residual Lab entry point: a router only. Each page is a thin view in lab/views/."""

from pathlib import Path

import pandas  # noqa: F401 - see below
import streamlit as st

from lab.views import widget_guard
from lab.views.presentation import apply_presentation_style, presentation_toggle

# The browser-tab icon is a file shipped with the app: a ":material/…" page icon makes every browser fetch it
# from a public font server (a privacy leak, and a broken icon in an offline classroom), and an emoji shows as an
# empty box where no emoji font is installed. The ":material/…" icons of the navigation are drawn with the font
# Streamlit ships (no request; only a page icon is fetched as an image), so they stay. tests/browser/
# test_hostile_links_browser.py checks that no request leaves the app's origin on any page.
# pandas is imported by the entry point, before any page runs, because plotly and st.table import it lazily:
# when many students' pages draw their first chart or table at the same moment (a class joining or a reveal
# right after a server start), plotly could see a half-initialised pandas module from another session's
# thread and fail (AttributeError: partially initialized module 'pandas'; seen in the Class browser test).
FAVICON = str(Path(__file__).resolve().parent / "assets" / "favicon.png")
widget_guard.install()  # widget values a browser never sends: replaced before Streamlit deserializes them
st.set_page_config(page_title="Residual Lab", page_icon=FAVICON, layout="wide")
presenting = presentation_toggle()  # every page: larger text and charts, no sidebar, reveals on button press

pages = [
    st.Page(
        "lab/views/explorer.py",
        title="Residual explorer",
        icon=":material/bar_chart:",
        url_path="explorer",
        default=True,
    ),
    st.Page("lab/views/binomial_lab.py", title="Binomial lab", icon=":material/casino:", url_path="binomial-lab"),
    st.Page("lab/views/numerics.py", title="Numerics", icon=":material/calculate:", url_path="numerics"),
    st.Page("lab/views/sampling.py", title="Sampling lab", icon=":material/scatter_plot:", url_path="sampling"),
    st.Page("lab/views/blocks.py", title="Blocks", icon=":material/view_week:", url_path="blocks"),
    st.Page("lab/views/pitfalls.py", title="Pitfalls", icon=":material/bug_report:", url_path="pitfalls"),
    st.Page("lab/views/exercises.py", title="Exercises", icon=":material/school:", url_path="exercises"),
    st.Page("lab/views/classroom.py", title="Class", icon=":material/groups:", url_path="class"),
]

page = st.navigation(pages, position="top" if presenting else "sidebar")
apply_presentation_style()
page.run()
