"""Small Streamlit helpers shared by the lab pages (URL sync, cached chart figures)."""

from __future__ import annotations

import streamlit as st
from streamlit.errors import StreamlitAPIException

from lab.charts.figures import FIGURES
from lab.core.display import markdown_escape
from lab.core.variants import VARIANTS, Variant
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


def refuse_link_values(warnings, store: str) -> None:
    """Take every refused parameter out of the link before a bound widget reads it, then run again.

    Why not let ``bind="query-params"`` ignore bad values? In Streamlit 1.67 a bound widget seeds itself
    on its first run from a snapshot of the link taken when the run started, and only ValueError,
    TypeError and IndexError are caught there: ``count=inf``, ``count=-inf`` or a 400-digit count make
    an int number_input raise OverflowError (an exception box). Deleting the parameter changes the live
    link but not that snapshot, so the page runs once more (``st.rerun()``), from the cleaned link.
    Other bad values (``abc``) would be dropped silently; here each is named in a warning instead.

    Only parameters whose widget is not yet in the session are checked: afterwards the widget owns
    the parameter (it cannot be deleted, and the value in the link is the one the widget wrote)."""
    fresh = [w for w in warnings if w.parameter not in st.session_state]
    removed = False
    for warning in fresh:
        try:
            del st.query_params[warning.parameter]
            removed = True
        except (KeyError, StreamlitAPIException):
            pass
    if fresh:
        st.session_state[store] = [*st.session_state.get(store, []), *(w.message for w in fresh)]
    if removed:
        st.rerun()


def show_link_warnings(store: str) -> None:
    """The warnings :func:`refuse_link_values` kept for this run (link text is shown as typed)."""
    for message in st.session_state.pop(store, []):
        st.warning(markdown_escape(message), icon=":material/link_off:")


def controls_model(model_cls, store: str, quiet: bool = False, **limits):
    """The page's control values read into its model, each validated (a crafted message can put any value
    in a widget's state). A refused value is named in an error and the last valid state stays on screen.
    ``quiet`` reads again later in the same run (after more widgets exist) without repeating the errors."""
    values = {key: st.session_state[key] for key in model_cls.PARAMS.values() if key in st.session_state}
    model, problems = model_cls.from_url(values, "control", **limits)
    if problems:
        for problem in [] if quiet else problems:
            st.error(markdown_escape(f"{problem}. The last valid setting stays on screen."))
        return st.session_state.get(store, model_cls())
    st.session_state[store] = model
    return model


# A variant (inside a block trace) is known by its name: streamlit cannot hash an arbitrary object, and it
# matches hash_funcs by exact type, so every variant class is listed.
_BY_NAME = {kind: (lambda variant: variant.name) for kind in {Variant, *(type(v) for v in VARIANTS.values())}}


@st.cache_resource(max_entries=512, show_spinner=False, hash_funcs=_BY_NAME)
def _figure(builder: str, args: tuple):
    return FIGURES[builder](*args)


def figure(builder: str, *args):
    """``lab.charts.figures.FIGURES[builder](*args)``, built once per distinct arguments: the pages' one path from a
    result to a figure. A figure costs about 1 ms to build; most reruns leave most charts unchanged, and a class
    on one scenario shares its figures. The figure is shared between sessions, so it must not be modified
    (st.plotly_chart does not)."""
    return _figure(builder, tuple(tuple(a) if isinstance(a, list) else a for a in args))


def chart(fig, key: str, alt: str) -> None:
    st.plotly_chart(fig, width="stretch", theme=None, key=key, config=CHART_CONFIG, alt=alt)
