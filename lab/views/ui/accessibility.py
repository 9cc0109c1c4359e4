"""Accessibility helpers every page uses (WCAG 2.1 AA; docs/accessibility.md): headings in order, without the
"Link to heading" tab stop Streamlit adds to each one.

A page has one ``title`` (h1); its sections are ``section`` (h2) and the parts of a section ``subsection`` (h3),
so a screen reader's list of headings never skips a level. The app's static styles (focus outlines, code colours)
are in lab/views/ui/presentation.py.
"""

from __future__ import annotations

import re

import streamlit as st

from lab.i18n import N_
from lab.views.ui.language import texts


def title(text: str) -> None:
    """The page's one h1."""
    st.title(text, anchor=False)


def section(text: str) -> None:
    """A section of the page: h2."""
    st.header(text, anchor=False)


def subsection(text: str) -> None:
    """A part of a section: h3."""
    st.subheader(text, anchor=False)


# --- live regions: what a screen reader announces --------------------------------------------------------
# A region inserted together with its text may not be announced; a region that is on the page from the first run
# and whose text then changes is. So each page draws its regions on every run (empty until there is something to
# say), and a Streamlit component keeps the same element across runs and sets only its text (textContent: the
# text is never HTML). The polite region (role=status) says what an action showed (a reveal, Saved); the
# assertive one (role=alert) says why an input was refused. The regions are invisible: what they say is on screen.
# ``focus``: the text of a heading, or the label of a button, to move keyboard focus to once, for an action whose
# button leaves the page (Join, Open for the class) or is replaced (Lock by Unlock): focus would otherwise fall back
# to the page's body. Each request carries a number of its own, so asking for the same target again moves it again.
LIVE_REGION_HTML = (
    '<div role="status" aria-live="polite" aria-atomic="true" data-live="status"></div>'
    '<div role="alert" aria-live="assertive" aria-atomic="true" data-live="alert"></div>'
)
# A named function, so a component that is also something else (lab.views.live_class.follow: a student page's live
# region is its
# follower too, one element instead of two on every page of a class) can hold the same regions.
LIVE_REGION_FUNCTION = """
function liveRegion({ data, parentElement }) {
  for (const name of ["status", "alert"]) {
    const region = parentElement.querySelector(`[data-live=${name}]`);
    const text = (data && data[name]) || "";
    if (region && region.textContent !== text) region.textContent = text;
  }
  const heading = (data && data.focus) || "";
  const request = `${(data && data.focus_seq) || 0}:${heading}`;
  if (heading && parentElement.dataset.focused !== request) {
    parentElement.dataset.focused = request;
    let tries = 0;
    const move = () => {  // the heading or button may be drawn a moment after this element
      const target = [...document.querySelectorAll("[data-testid=stMain] :is(h1, h2, h3, button)")]
        .find(h => h.textContent.trim() === heading);
      if (target) {
        if (target.tagName !== "BUTTON") target.setAttribute("tabindex", "-1");
        target.focus();
      } else if (++tries < 20) {
        setTimeout(move, 50);
      }
    };
    move();
  }
}
"""
LIVE_KEY_PREFIX = "live-"  # the regions' element keys: presentation.py's CSS takes them out of the layout
_live_region = st.components.v2.component(
    "residual_lab_live_region",
    html=LIVE_REGION_HTML,
    js=LIVE_REGION_FUNCTION + "export default liveRegion;\n",
    isolate_styles=False,
)


def spoken(markdown_line: str) -> str:
    """A page's markdown line (bold marks, backslash escapes from lab.core.formatting.markdown_escape) as the plain
    text a live region says."""
    return re.sub(r"\\(.)", r"\1", markdown_line.replace("**", "")).replace("\u2060", "")


def announce(key: str, message: str = "", *, error: str = "", focus: str = "") -> None:
    """This spot's live regions, with what to announce now: ``message`` politely, ``error`` assertively (both may be
    empty). Call it on every run of the page (or of its fragment), with the same ``key``, so the region exists
    before its text changes; a screen reader announces a change of the text. ``focus``: see above (pass it only in
    the run right after the action)."""
    _live_region(key=live_element_key(key), data=live_data(key, message, error=error, focus=focus))


def live_element_key(key: str) -> str:
    """The element key of ``announce(key, …)``'s regions."""
    return f"{LIVE_KEY_PREFIX}{key}"


def live_data(key: str, message: str = "", *, error: str = "", focus: str = "") -> dict:
    """What :func:`announce` sends its regions (LIVE_REGION_FUNCTION reads it); counts this run's focus request."""
    seq_key = f"{LIVE_KEY_PREFIX}{key}-focus-seq"
    if focus:
        st.session_state[seq_key] = st.session_state.get(seq_key, 0) + 1
    return {"status": message, "alert": error, "focus": focus, "focus_seq": st.session_state.get(seq_key, 0)}


# --- wide tables: a box that scrolls sideways is a tab stop ----------------------------------------------
# A markdown table wider than the screen (Numerics' p′/q′ table on a phone) scrolls sideways in its own box
# (presentation.py's CSS), never the whole page (WCAG 1.4.10). A keyboard user scrolls such a box with the arrow
# keys once it has focus, so a box that does overflow gets tabindex=0 and a name (role=region, "Table, scrolls
# sideways"), and loses them again when it fits: no extra tab stop where nothing scrolls (WCAG 2.1.1). Markdown
# cannot carry the attribute, so one observer per browser tab sets it whenever the page changes or is resized.
# The same script closes the sidebar on a narrow screen once a page is chosen in it.
SCROLL_BOX_KEY = "a11y-scroll-boxes"
SCROLL_BOX_LABEL = "Table, scrolls sideways"
_SCROLL_BOX_JS = """
export default function ({ data }) {
  if (window.__residualLabScrollBoxes) return;  // one observer for the tab, whatever page is shown
  window.__residualLabScrollBoxes = true;
  const label = data.label;
  let queued = false;
  const mark = () => {
    queued = false;
    for (const box of document.querySelectorAll("[data-testid=stMarkdownContainer]:has(> table)")) {
      const wide = box.scrollWidth > box.clientWidth + 1;
      if (wide && box.getAttribute("tabindex") !== "0") {
        box.setAttribute("tabindex", "0");
        box.setAttribute("role", "region");
        box.setAttribute("aria-label", label);
      } else if (!wide && box.getAttribute("aria-label") === label) {
        box.removeAttribute("tabindex");
        box.removeAttribute("role");
        box.removeAttribute("aria-label");
      }
    }
  };
  // The menu's groups (Start here, Tools, ...): Streamlit puts each group's header and links in a div inside the
  // list, which is not a list any more (axe: list, listitem). Each group becomes a named group of links instead.
  const groups = () => {
    for (const list of document.querySelectorAll("[data-testid=stSidebarNavItems]:has(> div)")) {
      list.setAttribute("role", "none");
      for (const group of list.querySelectorAll(":scope > div")) {
        const header = group.querySelector(":scope > header");
        group.setAttribute("role", "group");
        if (header) group.setAttribute("aria-label", header.innerText.trim());
        for (const item of group.querySelectorAll(":scope > li")) item.setAttribute("role", "none");
      }
    }
  };
  const later = () => { if (!queued) { queued = true; requestAnimationFrame(() => { mark(); groups(); }); } };
  new MutationObserver(later).observe(document.body, { childList: true, subtree: true });
  window.addEventListener("resize", later);
  later();
  // A narrow screen shows the sidebar over the page: choosing a page in it closes it (Streamlit does so only for a
  // browser that calls itself a phone, not for a narrow window or a tablet).
  document.addEventListener("click", (event) => {
    if (!event.target.closest || !event.target.closest("[data-testid=stSidebarNav] a")) return;
    if (!window.matchMedia("(max-width: 767.98px)").matches) return;
    setTimeout(() => {
      const close = document.querySelector("[data-testid=stSidebarCollapseButton] button");
      if (close && close.getAttribute("aria-expanded") === "true") close.click();
    }, 50);
  });
}
"""
_scroll_boxes = st.components.v2.component("residual_lab_scroll_boxes", js=_SCROLL_BOX_JS, isolate_styles=False)


def scroll_boxes() -> None:
    """The observer above; app.py draws it on every page (invisible, out of the layout)."""
    _scroll_boxes(key=SCROLL_BOX_KEY, data={"label": SCROLL_BOX_LABEL})


# A data grid (st.dataframe) wider than a phone scrolls inside its canvas, and a phone shows no scroll bar: the
# columns past the edge look missing. Above such a table, a line says so on narrow screens only (CSS in
# lab.views.ui.presentation.ACCESSIBILITY_CSS hides it from 700 px up, where these tables fit).
WIDE_TABLE_CUE = N_("Scroll the table sideways (swipe it) for its other columns →")


def wide_table_cue(key: str) -> None:
    """The phone-only line above a data grid wider than a phone (``key``: unique on the page)."""
    with st.container(key=f"scroll-cue-{key}"):
        st.caption(texts()(WIDE_TABLE_CUE))
