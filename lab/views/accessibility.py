"""Accessibility helpers every page uses (WCAG 2.1 AA; docs/accessibility.md): headings in order, without the
"Link to heading" tab stop Streamlit adds to each one.

A page has one ``title`` (h1); its sections are ``section`` (h2) and the parts of a section ``subsection`` (h3),
so a screen reader's list of headings never skips a level. The app's static styles (focus outlines, code colours)
are in lab/views/presentation.py.
"""

from __future__ import annotations

import streamlit as st


def title(text: str) -> None:
    """The page's one h1."""
    st.title(text, anchor=False)


def section(text: str) -> None:
    """A section of the page: h2."""
    st.header(text, anchor=False)


def subsection(text: str) -> None:
    """A part of a section: h3."""
    st.subheader(text, anchor=False)
