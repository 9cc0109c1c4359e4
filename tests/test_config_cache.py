"""lab.views.patches.config_cache: Streamlit's options read through a cache give exactly what Streamlit's own locked
reading
gives, also after an option is set and after the configuration is parsed again."""

from __future__ import annotations

import pytest
from streamlit import config

from lab.views.patches import config_cache


@pytest.fixture
def cached():
    config_cache.install()
    yield config.get_option
    config_cache._forget()


def locked(key: str):
    with config._config_lock:
        return config.get_config_options()[key].value


def test_every_option_reads_as_streamlit_reads_it(cached):
    keys = list(config.get_config_options())
    assert len(keys) > 100
    for key in keys:
        assert cached(key) == locked(key), key
        assert cached(key) == locked(key), key  # the second read comes from the cache


def test_installed_once_and_unknown_keys_still_refused(cached):
    config_cache.install()
    assert config.get_option is cached and cached._lab_cached
    with pytest.raises(RuntimeError, match="not defined"):
        cached("no.suchOption")


def test_a_set_option_and_a_new_parse_are_seen(cached):
    key = "global.minCachedMessageSize"
    before = cached(key)
    try:
        config.set_option(key, before + 7)
        assert cached(key) == before + 7 == locked(key)
    finally:
        config.set_option(key, before)
    assert cached(key) == before
    config.get_config_options(force_reparse=True)  # the files read again: the cache starts again from them
    assert cached(key) == locked(key)


def test_every_section_reads_as_streamlit_reads_it_also_after_a_set_option(cached):
    def locked_section(section):
        with config._config_lock:
            return {o.name: o.value for o in config.get_config_options().values() if o.section == section}

    sections = {option.section for option in config.get_config_options().values()}
    assert {"theme", "theme.sidebar", "server"} <= sections
    for section in sections:
        assert config.get_options_for_section(section) == locked_section(section), section
        assert config.get_options_for_section(section) == locked_section(section), section  # from the cache
    config.get_options_for_section("theme")["base"] = "changed by a caller"  # a copy each time
    assert config.get_options_for_section("theme") == locked_section("theme")
    before = config.get_option("theme.base")
    try:
        config.set_option("theme.base", "dark")
        assert config.get_options_for_section("theme")["base"] == "dark" == locked_section("theme")["base"]
    finally:
        config.set_option("theme.base", before)
    assert config.get_options_for_section("theme") == locked_section("theme")


THEME_SECTIONS = ("theme", "theme.light", "theme.dark", "theme.sidebar", "theme.light.sidebar", "theme.dark.sidebar")


def parts() -> list[bytes]:
    """Every configuration part of a new-session message, as the app's process makes it (the theme's sections as
    app_session calls them: the first without a section)."""
    from streamlit.proto.ForwardMsg_pb2 import ForwardMsg
    from streamlit.runtime import app_session

    msg = ForwardMsg()
    app_session._populate_config_msg(msg.new_session.config)
    theme = msg.new_session.custom_theme
    app_session._populate_theme_msg(theme)
    for section, part in zip(THEME_SECTIONS[1:], (theme.light, theme.dark, theme.sidebar, theme.light.sidebar,
                                                  theme.dark.sidebar)):
        app_session._populate_theme_msg(part, section)
    return [msg.SerializeToString(deterministic=True)]


def streamlits_parts() -> list[bytes]:
    from streamlit.runtime import app_session

    saved = {name: getattr(app_session, name) for name in ("_populate_config_msg", "_populate_theme_msg")}
    try:
        for name, function in saved.items():
            setattr(app_session, name, getattr(function, "__wrapped__", function))
        return parts()
    finally:
        for name, function in saved.items():
            setattr(app_session, name, function)


def test_the_new_session_messages_configuration_is_streamlits_also_after_a_set_option(cached):
    from streamlit.runtime import app_session

    assert app_session._populate_config_msg.__wrapped__ and app_session._populate_theme_msg.__wrapped__
    before = streamlits_parts()
    assert parts() == before and parts() == before  # the second from the cache
    settings = {"theme.primaryColor": "#1f5fa8", "theme.sidebar.backgroundColor": "#eeeeee", "ui.hideTopBar": True}
    saved = {key: config.get_option(key) for key in settings}
    try:
        for key, value in settings.items():
            config.set_option(key, value)
        changed = streamlits_parts()
        assert changed != before  # the options are in the message: the comparison below can fail
        assert parts() == changed
    finally:
        for key, value in saved.items():
            config.set_option(key, value)
    assert parts() == streamlits_parts() == before


def test_streamlit_fills_only_new_messages_with_them():
    """The parts are merged into the message given: right only while Streamlit gives each a new one, in the new
    session message it has just made. A Streamlit upgrade that calls them elsewhere fails here."""
    import inspect
    import re

    from streamlit.runtime import app_session

    source = inspect.getsource(app_session)
    calls = re.findall(r"(?<!def )_populate_(?:config|theme)_msg\(\s*([^,)]+)", source)
    made_in = inspect.getsource(app_session.AppSession._create_new_session_message)
    assert len(calls) == 7 and len(re.findall(r"_populate_(?:config|theme)_msg\(", made_in)) == 7
    assert all(call.startswith("msg.new_session.") for call in calls)
    assert "msg = ForwardMsg()" in made_in
