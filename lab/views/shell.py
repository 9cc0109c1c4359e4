"""The app's frame, built once per server process: the navigation's pages and the browser-tab icon.

app.py runs on every full run of every student's page, so its file work (resolving page paths, reading the
icon) is done here once (docs/performance.md, "Per-run file work").
"""

from __future__ import annotations

import base64
import copy
from pathlib import Path

import streamlit as st

ROOT = Path(__file__).resolve().parents[2]

# A file shipped with the app, as a data URL (passed through as it is): a ":material/…" page icon is fetched from a
# public font server, and an emoji is a box where no emoji font is installed.
FAVICON = "data:image/png;base64," + base64.b64encode((ROOT / "assets" / "favicon.png").read_bytes()).decode()

# (file, title, icon, url path); the first page is the default one, served at "/".
PAGES = (
    ("lab/views/explorer.py", "Residual explorer", ":material/bar_chart:", "explorer"),
    ("lab/views/binomial_lab.py", "Binomial lab", ":material/casino:", "binomial-lab"),
    ("lab/views/numerics.py", "Numerics", ":material/calculate:", "numerics"),
    ("lab/views/sampling.py", "Sampling lab", ":material/scatter_plot:", "sampling"),
    ("lab/views/blocks.py", "Blocks", ":material/view_week:", "blocks"),
    ("lab/views/pitfalls.py", "Pitfalls", ":material/bug_report:", "pitfalls"),
    ("lab/views/exercises.py", "Exercises", ":material/school:", "exercises"),
    ("lab/views/classroom.py", "Class", ":material/groups:", "class"),
)
# Pages reached only by a link, never listed in the navigation: (file, title, icon, url path).
LINKED_PAGES = (("lab/views/projector.py", "Projector view", ":material/present_to_all:", "projector"),)


@st.cache_resource(show_spinner=False)
def _page_prototypes() -> tuple:
    listed = tuple(
        st.Page(path, title=title, icon=icon, url_path=url_path, default=i == 0)
        for i, (path, title, icon, url_path) in enumerate(PAGES)
    )
    return listed + tuple(
        st.Page(path, title=title, icon=icon, url_path=url_path, visibility="hidden")
        for path, title, icon, url_path in LINKED_PAGES
    )


APP_TITLE = "Residual Lab"


def tab_title(page) -> str:
    """The browser tab's title for ``page``: the page's own title first, then the app's (WCAG 2.4.2)."""
    return f"{page.title} · {APP_TITLE}"


def pages() -> list:
    """This run's pages: copies of pages made once (st.navigation marks the page it returns as callable
    and running it clears the mark, so sessions running at the same moment must not share the objects)."""
    return [copy.copy(page) for page in _page_prototypes()]
