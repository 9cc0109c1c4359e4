"""Small Streamlit helpers shared by the lab pages (URL sync, charts, fraction tables)."""

from __future__ import annotations

import streamlit as st

CHART_CONFIG = {"displayModeBar": False, "responsive": True}


def sync_query_params(desired: dict[str, str]) -> None:
    """Make the URL hold exactly ``desired`` (the page's controls away from their defaults).

    Written only when it differs, so an unchanged run does not touch the browser history."""
    current = st.query_params.to_dict()
    if current != desired:
        st.query_params.from_dict(desired)


def chart(fig, key: str, alt: str) -> None:
    st.plotly_chart(fig, width="stretch", theme=None, key=key, config=CHART_CONFIG, alt=alt)
