"""Small Streamlit helpers shared by the lab pages (URL sync, cached chart figures)."""

from __future__ import annotations

import streamlit as st

from lab import charts
from lab.views.presentation import APP_PARAMS

CHART_CONFIG = {"displayModeBar": False, "responsive": True}


def sync_query_params(desired: dict[str, str]) -> None:
    """Make the URL hold exactly ``desired`` (the page's controls away from their defaults) plus the
    app-wide parameters (``present=1``), which belong to app.py, not to the page.

    Written only when it differs, so an unchanged run does not touch the browser history."""
    current = st.query_params.to_dict()
    wanted = {**{k: current[k] for k in APP_PARAMS if k in current}, **desired}
    if current != wanted:
        st.query_params.from_dict(wanted)


@st.cache_resource(max_entries=512, show_spinner=False)
def _figure(builder: str, args: tuple):
    return getattr(charts, builder)(*args)


def figure(builder: str, *args):
    """``lab.charts.<builder>(*args)``, built once per distinct arguments: plotly's figure validation
    costs ~10 ms a chart, most reruns (a moved prediction slider) leave most charts unchanged. The
    figure is shared between sessions, so it must not be modified (st.plotly_chart does not)."""
    return _figure(builder, tuple(tuple(a) if isinstance(a, list) else a for a in args))


def chart(fig, key: str, alt: str) -> None:
    st.plotly_chart(fig, width="stretch", theme=None, key=key, config=CHART_CONFIG, alt=alt)
