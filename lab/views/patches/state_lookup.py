"""A widget's one look at session state, without copying all of it (installed by lab.views.patches.install_all).

Streamlit 1.67's value widgets (number input, slider, select box, radio, text input and area, date and time inputs)
ask, each time one is drawn, whether their key is in session state and holds None, and read that through
``SessionState.filtered_state``: a fresh dict of every key of the session, each value passed through its widget's
presenter (a Streamlit component's presenter even defines a class on each call): on a page with a bar predictor, live
regions and 30 keys, for every widget drawn.

:func:`install` gives those widget modules a ``get_session_state`` whose ``filtered_state`` is a view answering that
question for the one key asked (``in`` and ``[]``, the same answer as the dict, under the same lock); every other use
of session state is Streamlit's own. tests/test_state_lookup.py checks the view against ``filtered_state`` for every
key of real page sessions, and fails if a Streamlit upgrade changes the call sites.

It also gives ``SessionState`` a ``__contains__`` that does not present the value it finds: Streamlit's asks
``self[key]`` and catches KeyError, so every ``key in session_state`` of a component's key built that component's
presented value (a new class each time). Registering any widget asks that twice, so each component on a page (live
regions, the bar predictor, the follower) paid it on every run. A presenter swallows every error and only ever returns
a value, so whether ``self[key]`` raises KeyError does not depend on it; tests/test_state_lookup.py checks the answers
are the same.

And it gives ``SessionState`` a ``_compact_state`` (what every run does first: each value of the last run is kept as
the old value) that keeps each value as stored, not presented. Streamlit's keeps ``self[key]``, so every component on
the page built its presented value, a write-through dict of a class defined anew on each call, at the start of every
run. The presented value holds the stored one plus the component's trigger values, and those are reset at the end of
every run (``_reset_triggers``), so it is the stored value in another dict; every read of the kept value presents it
again as before. tests/test_state_lookup.py compares what both keep for every key of real pages.
"""

from __future__ import annotations

import importlib

from streamlit.runtime.state import common as _common
from streamlit.runtime.state import session_state as _session_state

# The widget modules that read ``get_session_state().filtered_state`` (each only with ``key in`` and ``[key]``).
WIDGET_MODULES = (
    "streamlit.elements.widgets.number_input",
    "streamlit.elements.widgets.slider",
    "streamlit.elements.widgets.selectbox",
    "streamlit.elements.widgets.radio",
    "streamlit.elements.widgets.text_widgets",
    "streamlit.elements.widgets.time_widgets",
)


def _filtered_id(state, key: str) -> str | None:
    """The id under which ``SessionState.filtered_state`` would list ``key`` (None: it would not list it). It lists
    each of ``_keys()`` that is a plain session key under that key, and a keyed widget's id under its user key."""
    if not isinstance(key, str):
        return None
    widget_id = state._get_widget_id(key)
    if _session_state._is_internal_key(widget_id) or widget_id not in state._keys():
        return None
    if not _common.is_element_id(widget_id):
        return widget_id if widget_id == key else None
    if _common.is_keyed_element_id(widget_id) and state._key_id_mapper.id_key_mapping.get(widget_id) == key:
        return widget_id
    return None


class FilteredView:
    """``filtered_state`` for one key at a time: ``key in view`` and ``view[key]`` as the dict would answer."""

    __slots__ = ("_safe",)

    def __init__(self, safe_state) -> None:
        self._safe = safe_state

    def __contains__(self, key) -> bool:
        with self._safe._lock:
            return _filtered_id(self._safe._state, key) is not None

    def __getitem__(self, key):
        with self._safe._lock:
            state = self._safe._state
            widget_id = _filtered_id(state, key)
            if widget_id is None:
                raise KeyError(key)
            return state[widget_id]  # presented, as the dict's value is


class _WidgetSessionState:
    """The session's state for a widget module: its ``filtered_state`` is a :class:`FilteredView`."""

    __slots__ = ("_safe",)

    def __init__(self, safe_state) -> None:
        self._safe = safe_state

    @property
    def filtered_state(self) -> FilteredView:
        return FilteredView(self._safe)

    def __getattr__(self, name):
        return getattr(self._safe, name)


STREAMLIT_CONTAINS = _session_state.SessionState.__contains__  # Streamlit's own, kept for the test beside ours


def contains(state, key) -> bool:
    """``key in state`` as Streamlit 1.67's ``SessionState.__contains__`` answers it (``state[key]`` raises
    KeyError or not), without passing the value found through its widget's presenter (see the module's text)."""
    try:
        stored(state, key)
    except KeyError:
        return False
    return True


STREAMLIT_COMPACT_STATE = _session_state.SessionState._compact_state


def stored(state, key):
    """``state[key]`` as Streamlit 1.67's ``SessionState.__getitem__`` finds it, not passed through the widget's
    presenter (KeyError when there is nothing)."""
    widget_id = state._get_widget_id(key)
    if widget_id in state._key_id_mapper.id_key_mapping and widget_id == key:
        key = state._key_id_mapper.id_key_mapping[widget_id]  # a raw widget id: looked up by its user key
    return state._getitem(widget_id, key)


def compact_state(state) -> None:
    """Streamlit 1.67's ``SessionState._compact_state``, keeping each value as stored (see the module's text)."""
    for key_or_wid in state:
        try:
            state._old_state[key_or_wid] = stored(state, key_or_wid)
        except KeyError:
            pass  # as Streamlit: widget state without metadata (streamlit/streamlit#7206)
    state._new_session_state.clear()
    state._new_widget_state.clear()


def install() -> None:
    """Give each widget module the reader above, and ``SessionState`` the ``__contains__`` and ``_compact_state``
    above, once per process (later calls do nothing)."""
    _session_state.SessionState.__contains__ = contains
    _session_state.SessionState._compact_state = compact_state
    for name in WIDGET_MODULES:
        module = importlib.import_module(name)
        original = module.get_session_state
        if getattr(original, "_lab_view", False):
            continue

        def get_session_state(_original=original):
            return _WidgetSessionState(_original())

        get_session_state._lab_view = True
        module.get_session_state = get_session_state
