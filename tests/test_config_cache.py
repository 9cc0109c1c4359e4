"""lab.views.config_cache: Streamlit's options read through a cache give exactly what Streamlit's own locked reading
gives, also after an option is set and after the configuration is parsed again."""

from __future__ import annotations

import pytest
from streamlit import config

from lab.views import config_cache


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
