"""Residual Lab entry point: a router only. Each page is a thin view in lab/views/."""

import streamlit as st

from lab.views.common import freeze_module_objects
from lab.views.presentation import apply_presentation_style, presentation_toggle

# Icons are emoji, drawn by the browser: a ":material/…" page icon makes every browser fetch it from a public
# font server (a privacy leak, and a broken icon in an offline classroom). tests/browser checks no request leaves.
st.set_page_config(page_title="Residual Lab", page_icon="🧪", layout="wide")
presenting = presentation_toggle()  # every page: larger text and charts, no sidebar, reveals on button press

pages = [
    st.Page(
        "lab/views/explorer.py",
        title="Residual explorer",
        icon="📊",
        url_path="explorer",
        default=True,
    ),
    st.Page("lab/views/binomial_lab.py", title="Binomial lab", icon="🎲", url_path="binomial-lab"),
    st.Page("lab/views/numerics.py", title="Numerics", icon="🧮", url_path="numerics"),
    st.Page("lab/views/sampling.py", title="Sampling lab", icon="🎯", url_path="sampling"),
    st.Page("lab/views/blocks.py", title="Blocks", icon="🧱", url_path="blocks"),
    st.Page("lab/views/pitfalls.py", title="Pitfalls", icon="🐞", url_path="pitfalls"),
    st.Page("lab/views/exercises.py", title="Exercises", icon="🎓", url_path="exercises"),
]

page = st.navigation(pages, position="top" if presenting else "sidebar")
apply_presentation_style()
page.run()
freeze_module_objects()  # after the page imported its modules: keeps the per-run GC short (see its docstring)
