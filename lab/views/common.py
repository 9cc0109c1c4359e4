"""Small Streamlit helpers shared by the lab pages (URL sync, cached chart figures)."""

from __future__ import annotations

import functools

import plotly.graph_objects as go
import streamlit as st
from streamlit.errors import StreamlitAPIException

from lab.charts.base import title_of
from lab.charts.figures import FIGURES
from lab.core.formatting import markdown_escape, markdown_table
from lab.core.variants import Variant
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


def _cache_key(value):
    """``value`` with the type of every part beside it: 1/2 and 0.5 are equal and hash alike in Python, but a
    figure labels them differently. A variant (inside a block trace) is known by its name, a dict by its items."""
    if isinstance(value, Variant):
        return (Variant, value.name)
    if isinstance(value, (list, tuple)):
        return (tuple, tuple(_cache_key(part) for part in value))
    if isinstance(value, dict):  # e.g. named laws: known by their names and values, in order
        return (dict, tuple((_cache_key(k), _cache_key(v)) for k, v in value.items()))
    return (type(value), value)


class _Call:
    """A builder's arguments, known to the cache by their typed key only (the arguments may hold parts Python
    cannot hash, such as a variant)."""

    __slots__ = ("key", "args", "_hash")

    def __init__(self, key, args):
        self.key, self.args, self._hash = key, args, hash(key)

    def __hash__(self):
        return self._hash

    def __eq__(self, other):
        return isinstance(other, _Call) and self.key == other.key


class _SharedFigure(go.Figure):
    """A cached figure: shared by every session, never modified, so it makes its dict once (st.plotly_chart asks
    for it on every call and only reads it; plotly would deep-copy the whole figure each time)."""

    def to_dict(self) -> dict:
        made = self.__dict__.get("_lab_dict")
        if made is None:
            made = self._lab_dict = super().to_dict()
        return made


@functools.lru_cache(maxsize=512)
def _figure(builder: str, call: _Call):
    fig = FIGURES[builder](*call.args)
    fig.__class__ = _SharedFigure  # the same figure, its dict made once (a builder returns a plain go.Figure)
    return fig


def figure(builder: str, *args):
    """``lab.charts.figures.FIGURES[builder](*args)``, built once per distinct arguments: the pages' one path from a
    result to a figure (most reruns leave most charts unchanged, and a class on one scenario shares them). The figure
    is shared between sessions, so it must not be modified (st.plotly_chart does not). Keyed by Python's own hashing
    of the arguments and their types, which is cheap for Fractions (docs/performance.md, "The figure cache")."""
    args = tuple(tuple(a) if isinstance(a, list) else a for a in args)
    try:
        call = _Call(_cache_key(args), args)
    except TypeError:  # a part Python cannot hash: build it for this run only
        return FIGURES[builder](*args)
    return _figure(builder, call)


def chart(fig, key: str, alt: str, table: tuple | None = None, height="content") -> None:
    """A figure with ``alt`` as its text alternative (its exact values), under its title drawn as page text (it wraps
    on a narrow screen, where plotly would cut it off: lab.charts.base.layout). ``table``: (header, rows) of a chart
    that has no table of its values beside it on the page: they go in an expander under it, drawn only while open
    (opening it reruns), so a run costs one element more, not a table. ``height="stretch"``: as tall as its
    container (whose height CSS sets), for a figure without a height."""
    heading, subtitle = title_of({"meta": fig.layout.meta})
    if heading:
        st.markdown(f"**{markdown_escape(heading)}**" + (f"  \n{markdown_escape(subtitle)}" if subtitle else ""))
    st.plotly_chart(fig, width="stretch", height=height, theme=None, key=key, config=CHART_CONFIG, alt=alt)
    if table is not None:
        values = st.expander("The chart's values as a table", key=f"{key}_values", on_change="rerun")
        if values.open:
            with values:
                st.markdown(markdown_table(*table))
