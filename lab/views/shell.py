"""The app's frame, built once per server process: the navigation's pages and the browser-tab icon.

app.py runs on every full run of every student's page, so its file work (resolving page paths, reading the
icon) is done here once (docs/architecture.md, "Why a few things are the way they are").
"""

from __future__ import annotations

import base64
import copy
from pathlib import Path
from typing import NamedTuple

import streamlit as st

from lab.i18n import N_, SOURCE, texts

ROOT = Path(__file__).resolve().parents[2]

# A file shipped with the app, as a data URL (passed through as it is): a ":material/…" page icon is fetched from a
# public font server, and an emoji is a box where no emoji font is installed.
FAVICON = "data:image/png;base64," + base64.b64encode((ROOT / "assets" / "favicon.png").read_bytes()).decode()

class PageEntry(NamedTuple):
    """One page of the app: the one list of pages (PAGES, LINKED_PAGES) that app.py routes and the tests and
    benches read (tests/test_pages_*.py, tests/browser/test_accessibility.py, tests/loadclient.py)."""

    file: str  # the view, relative to the repository's top folder
    title: str
    icon: str
    url_path: str
    section: str = ""  # the menu's group (LINKED_PAGES: none)
    translated: bool = False  # every word of the page comes through the catalogs (lab/i18n; else shown in English)

    @property
    def address(self) -> str:
        """The path a link opens it at: the default page (the first) is served at "/"."""
        return "" if self == PAGES[0] else self.url_path


# The menu's groups, in order: the lesson first, then the tools, the engineers' page and the live class.
LESSON, TOOLS, ENGINEERS, CLASS = N_("Start here"), N_("Tools"), N_("For engineers"), N_("Teaching a class")
# The navigation's pages, group by group; the first is the default one, served at "/".
PAGES = (
    PageEntry("lab/views/lesson/start_here.py", N_("Start here"), ":material/flag:", "start-here", LESSON, True),
    PageEntry("lab/views/lesson/glossary.py", N_("Glossary"), ":material/menu_book:", "glossary", LESSON, True),
    PageEntry("lab/views/pages/explorer.py", N_("Residual explorer"), ":material/bar_chart:", "explorer", TOOLS, True),
    PageEntry("lab/views/pages/binomial_lab.py", N_("Binomial lab"), ":material/casino:", "binomial-lab", TOOLS, True),
    PageEntry("lab/views/pages/sampling.py", N_("Sampling lab"), ":material/scatter_plot:", "sampling", TOOLS, True),
    PageEntry("lab/views/pages/blocks.py", N_("Blocks"), ":material/view_week:", "blocks", TOOLS, True),
    PageEntry(
        "lab/views/pages/several_drafts.py", N_("Several drafts"), ":material/account_tree:", "several-drafts", TOOLS,
        True,
    ),
    PageEntry("lab/views/pages/pitfalls.py", N_("Pitfalls"), ":material/bug_report:", "pitfalls", TOOLS, True),
    PageEntry("lab/views/pages/exercises.py", N_("Exercises"), ":material/school:", "exercises", TOOLS, True),
    PageEntry(
        "lab/views/pages/numerics.py", N_("Numerics (logits, float32)"), ":material/calculate:", "numerics", ENGINEERS,
        True,
    ),
    PageEntry("lab/views/live_class/classroom.py", N_("Class"), ":material/groups:", "class", CLASS, True),
)
# Pages reached only by a link, never listed in the navigation.
LINKED_PAGES = (
    PageEntry(
        "lab/views/live_class/projector.py", N_("Projector view"), ":material/present_to_all:", "projector", "", True
    ),
)


def entry_of(page) -> PageEntry:
    """The entry of a page st.navigation returned (by its address; the default page's is "")."""
    return page_named(page.url_path) if page.url_path else PAGES[0]


def page_named(url_path: str) -> PageEntry:
    """The page served at ``url_path`` (listed or linked)."""
    return next(page for page in (*PAGES, *LINKED_PAGES) if page.url_path == url_path)


CLASS_URL_PATH = "class"
CLASS_PAGE = page_named(CLASS_URL_PATH).file  # alone in the menu while a joined student's class runs


@st.cache_resource(show_spinner=False)
def _page_prototypes(class_only: bool = False, language: str = SOURCE) -> tuple:
    """``class_only``: a joined student's running class (lab.views.live_class.holding): every page but Class is hidden
    from the menu (still routed, so a link to one is answered with the way back). ``language``: the titles'."""
    _ = texts(language)
    listed = tuple(
        st.Page(
            entry.file,
            title=_(entry.title),
            icon=entry.icon,
            url_path=entry.url_path,
            default=i == 0,
            visibility="hidden" if class_only and entry.file != CLASS_PAGE else "visible",
        )
        for i, entry in enumerate(PAGES)
    )
    return listed + tuple(
        st.Page(entry.file, title=_(entry.title), icon=entry.icon, url_path=entry.url_path, visibility="hidden")
        for entry in LINKED_PAGES
    )


APP_TITLE = "Residual Lab"


def tab_title(page) -> str:
    """The browser tab's title for ``page``: the page's own title first, then the app's (WCAG 2.4.2)."""
    return f"{page.title} · {APP_TITLE}"


def pages(class_only: bool = False, language: str = SOURCE) -> dict[str, list] | list:
    """This run's pages by menu group: copies of pages made once (st.navigation marks the page it returns as
    callable and running it clears the mark, so sessions running at the same moment must not share the objects).
    ``class_only``: the Class page alone in the menu (see _page_prototypes). The linked pages, hidden, go with the
    last group. With ``class_only`` a plain list: a group whose pages are all hidden would still show its name.
    ``language``: the titles' and the groups' (lab.i18n)."""
    prototypes = _page_prototypes(class_only, language)
    _ = texts(language)
    if class_only:
        return [copy.copy(page) for page in prototypes]
    grouped: dict[str, list] = {}
    for entry, page in zip(PAGES, prototypes):
        grouped.setdefault(_(entry.section), []).append(copy.copy(page))
    grouped[_(PAGES[-1].section)].extend(copy.copy(page) for page in prototypes[len(PAGES):])
    return grouped
