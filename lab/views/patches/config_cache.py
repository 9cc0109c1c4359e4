"""Streamlit's configuration read without its process-wide lock (installed by lab.views.patches.install_all).

Streamlit 1.67 reads a configuration option (``config.get_option``) for every element a page sends (the size above
which a message is cached, in ``forward_msg_cache.populate_hash_if_needed``), for every command (usage metrics) and
for every run, and each read takes one ``RLock`` for the whole process. When a teacher's action redraws 300 pages at
once, 300 script threads queue on that lock (py-spy found most of the server's samples there during a reveal).

:func:`install` puts a read-through cache in front of ``config.get_option`` (and of ``get_options_for_section``, which
every run's new-session message calls for the theme's sections): a value is read once through Streamlit's own locked
path and kept until the configuration changes (``config._on_config_parsed``, sent after Streamlit parsed its files
again, and every ``config._set_option``, which ``st.set_option`` and the parsing use). A generation counter keeps a
read that raced with such a change out of the cache. Reading a dict is atomic under the interpreter lock, so the
cached path needs no lock.

The same holds for the parts of that new-session message made from the configuration alone: its ``config`` and its six
theme sections (``_populate_config_msg``, ``_populate_theme_msg`` in ``streamlit/runtime/app_session.py``), each a
walk of its options into a protobuf message on every run of every page. Each part is made once by Streamlit's own
function and merged into each new message, until the configuration changes.

tests/test_config_cache.py checks every option, section and message part against Streamlit's own, and fails if a
Streamlit upgrade moves what is wrapped here.
"""

from __future__ import annotations

from streamlit import config
from streamlit.runtime import app_session

_MISSING = object()
_values: dict[str, object] = {}
_generation = [0]
_sections: dict[str, dict] = {}  # whole sections (get_options_for_section): section -> its options
_parts: dict[tuple, object] = {}  # new-session message parts: (function name, its arguments) -> the part made


def _forget(*_args, **_kwargs) -> None:
    _generation[0] += 1
    _values.clear()
    _sections.clear()
    _parts.clear()


def made_once(populate):
    """``populate(msg, *args)``, which fills an empty message from the configuration, made once per configuration
    and argument, then merged into each message it is given (always a new, empty one in a new-session message)."""
    name = populate.__name__

    def populate_from_cache(msg, *args) -> None:
        part = _parts.get((name, *args), _MISSING)
        if part is _MISSING:
            generation = _generation[0]
            part = type(msg)()
            populate(part, *args)
            part = part if part.ListFields() else None  # nothing set: merging it would mark msg as present
            if generation == _generation[0]:
                _parts[(name, *args)] = part
        if part is not None:
            msg.MergeFrom(part)

    populate_from_cache.__wrapped__ = populate
    return populate_from_cache


def install() -> None:
    """Wrap ``config.get_option``, ``config._set_option`` and the new-session message's configuration parts once
    per process (later calls do nothing). Only Streamlit's own function is wrapped: under AppTest
    ``config.get_option`` is a stand-in that overrides options for one run (``global.appTest``), which must not be
    kept."""
    locked_get = config.get_option
    if getattr(locked_get, "_lab_cached", False) or locked_get.__module__ != "streamlit.config":
        return
    _forget()
    locked_set = config._set_option

    def get_option(key: str):
        value = _values.get(key, _MISSING)
        if value is _MISSING:
            generation = _generation[0]
            value = locked_get(key)  # raises for an unknown key, as Streamlit does
            if generation == _generation[0]:
                _values[key] = value
        return value

    def _set_option(*args, **kwargs):
        try:
            return locked_set(*args, **kwargs)
        finally:
            _forget()

    locked_section = config.get_options_for_section

    def get_options_for_section(section: str) -> dict:
        # every run's new-session message builds the theme from four sections, each a walk of every option
        values = _sections.get(section)
        if values is None:
            generation = _generation[0]
            values = locked_section(section)
            if generation == _generation[0]:
                _sections[section] = values
        return dict(values)  # a copy: the caller may change it

    for name in ("_populate_config_msg", "_populate_theme_msg"):
        setattr(app_session, name, made_once(getattr(app_session, name)))
    get_option.__doc__ = locked_get.__doc__
    get_option._lab_cached = True
    get_options_for_section.__doc__ = locked_section.__doc__
    config.get_options_for_section = get_options_for_section
    config._set_option = _set_option
    config._on_config_parsed.connect(_forget, weak=False)
    config.get_option = get_option
