"""Residual Lab entry point: a router only. Each page is a thin view in lab/views/."""

import streamlit as st

st.set_page_config(page_title="Residual Lab", page_icon=":material/science:", layout="wide")

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
]

st.navigation(pages, position="sidebar").run()
