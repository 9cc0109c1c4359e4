"""What every page does with its state, in one place: load the page model from the link once (refusing bad link
values by name), keep a page's own state across runs, push the model into widget keys, read and check the controls'
values before drawing them, keep the link in step with the model, and redraw the whole page when a fragment changed
something drawn outside it."""

from __future__ import annotations

from collections.abc import Callable, Iterator, Mapping
from contextlib import contextmanager
from typing import TypeVar

import streamlit as st
from streamlit.errors import StreamlitAPIException

from lab.core.distributions import LabInputError
from lab.core.formatting import markdown_escape
from lab.views.ui.language import say, texts
from lab.views.ui.presentation import APP_PARAMS

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


def kept_in_session(name: str, factory: Callable[[], object]):
    """The object this session keeps under ``name`` (a page's own state across runs), made by ``factory()`` once."""
    if name not in st.session_state:
        st.session_state[name] = factory()
    return st.session_state[name]


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


def in_whole_page() -> bool:
    """Whether the whole page is running (inside :func:`whole_page`), not a fragment's own rerun."""
    return bool(st.session_state.get(_WHOLE_PAGE))


def drawn_outside(name: str, shown) -> None:
    """What a part of the page outside the fragments now shows (any comparable value)."""
    st.session_state[name] = shown


def redraw_page_if_changed(name: str, shown) -> None:
    """At the end of a fragment's own rerun: when the part outside it would now show something else than
    :func:`drawn_outside` recorded, the whole page runs once (a fragment cannot redraw what is outside it)."""
    if not st.session_state.get(_WHOLE_PAGE) and st.session_state.get(name) != shown:
        st.rerun()


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
        st.warning(markdown_escape(say(message)), icon=":material/link_off:")


def controls_model(model_cls, store: str, quiet: bool = False, **limits):
    """The page's control values read into its model, each validated (a crafted message can put any value
    in a widget's state). A refused value is named in an error and the last valid state stays on screen.
    ``quiet`` reads again later in the same run (after more widgets exist) without repeating the errors."""
    values = {key: st.session_state[key] for key in model_cls.PARAMS.values() if key in st.session_state}
    model, problems = model_cls.from_url(values, "control", **limits)
    if problems:
        _ = texts()
        for problem in [] if quiet else problems:
            st.error(markdown_escape(_("{problem}. The last valid setting stays on screen.",
                                       problem=say(problem.message))))
        return st.session_state.get(store, model_cls())
    st.session_state[store] = model
    return model


T = TypeVar("T")


def loaded_or_said(load: Callable[[str], T], name: str) -> T | None:
    """The data file ``name`` read by ``load``, or None after saying on the page why it is broken on disk (the
    rest of the page is then not drawn)."""
    try:
        return load(name)
    except LabInputError as exc:
        st.error(markdown_escape(say(exc)))
        return None


def keep_last_valid(store: str, compute: Callable[[], object]) -> tuple[object, LabInputError | None]:
    """``compute()`` and no refusal; when the input is refused (LabInputError), the last value that computed under
    ``store`` (None before the first) and the refusal, so the last valid state stays on screen."""
    try:
        value = compute()
    except LabInputError as exc:
        return st.session_state.get(store), exc
    st.session_state[store] = value
    return value, None
