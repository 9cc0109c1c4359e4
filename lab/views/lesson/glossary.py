"""Glossary: every word of the lab defined once (lab.teaching.glossary), each at its own anchor (``glossary#z``) so
the lesson can link a term where it first appears. In the page's language (lab.views.ui.language)."""

from __future__ import annotations

import streamlit as st

from lab.core.formatting import markdown_escape
from lab.teaching.glossary import TERMS
from lab.views.ui import language
from lab.views.ui.accessibility import title

_ = language.texts()
title(_("Glossary"))
st.caption(_("The words of speculative sampling, for someone who meets them for the first time."))
for term in TERMS:
    st.header(_(term.word), anchor=term.slug)  # the lab's own words, not user text
    st.markdown(markdown_escape(_(term.meaning)))
