"""What every page does with its state, in one place: load the page model from the link once, push the model into
widget keys, check a widget's value before drawing it, and redraw the whole page when a fragment changed something
drawn outside it."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager

import streamlit as st

_WHOLE_PAGE = "_page_state_whole_page"  # True while the whole page runs, False in a fragment's own rerun


def load_once(store: str, from_link: Callable[[], tuple], widgets: Callable | None = None) -> tuple:
    """The page's model, read from the link (``from_link() -> (model, warnings)``) on the session's first run and
    kept under ``store`` afterwards; on that first run ``widgets(model)`` (widget key -> value) is pushed into the
    widgets, and the link's warnings come back (later runs: none)."""
    if store in st.session_state:
        return st.session_state[store], []
    model, warnings = from_link()
    st.session_state[store] = model
    if widgets is not None:
        push_to_widgets(widgets(model))
    return model, list(warnings)


def push_to_widgets(values: Mapping[str, object]) -> None:
    """Widget key -> value, before those widgets are drawn (or in a callback), so they show the model's state."""
    for key, value in values.items():
        st.session_state[key] = value


def keep_valid(key: str, read: Callable[[object], object | None], fallback) -> None:
    """Before the widget ``key`` is drawn: a browser message can put any value in its state, so a value ``read``
    refuses (returns None for) or changes is replaced by ``fallback``, the model's last valid value."""
    if key in st.session_state and read(st.session_state[key]) != st.session_state[key]:
        st.session_state[key] = fallback


@contextmanager
def whole_page() -> Iterator[None]:
    """Around a page's main: tells :func:`redraw_page_if_changed` that the whole page is running."""
    st.session_state[_WHOLE_PAGE] = True
    try:
        yield
    finally:
        st.session_state[_WHOLE_PAGE] = False


def drawn_outside(name: str, shown) -> None:
    """What a part of the page outside the fragments now shows (any comparable value)."""
    st.session_state[name] = shown


def redraw_page_if_changed(name: str, shown) -> None:
    """At the end of a fragment's own rerun: when the part outside it would now show something else than
    :func:`drawn_outside` recorded, the whole page runs once (a fragment cannot redraw what is outside it)."""
    if not st.session_state.get(_WHOLE_PAGE) and st.session_state.get(name) != shown:
        st.rerun()
