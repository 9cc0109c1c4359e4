"""Hostile and merely odd links on every page: never an exception box, always a warning that names the
parameter that was refused (issue 9: "no input reaches an exception box")."""

from __future__ import annotations

import pytest
from pagetest import open_linked_page, page_models
from streamlit.testing.v1 import AppTest

from lab.models.binomial_lab import PREDICTION_PARAM
from lab.models.explorer import REVEAL_PARAM, TABLE_PARAMS
from lab.views.shell import LINKED_PAGES
from lab.views.shell import PAGES as APP_PAGES

HOSTILE = {
    "abc": "abc",
    "nan": "nan",
    "inf": "inf",
    "-inf": "-inf",
    "1/0": "1/0",
    "huge-exponent": "1e-99999999",
    "underscore-exponent": "1e-1_000_000",
    "10000-items": ",".join(["1"] * 10_000),
    "long": "7" * 50_000,  # every parameter of a page at once (nine on Several drafts) stays under Streamlit's 512 Ki
}
# Streamlit 1.67 ignores a whole query string longer than 512 Ki characters (query_params.sanitize_query_string):
# a 1 MB value never reaches the page, which then shows its defaults.
ONE_MB = "7" * 1_000_000

# Every URL parameter a page reads: its page models' declared controls (lab/models/<page>.py, CONTROLS) when they
# are in the link, and the state a model encodes by hand beside them. The pages are the app's own list
# (lab/views/shell.py): each one is here, among the quiet pages, or tested by its own file (OWN_TESTS).
HAND_ENCODED = {"lab/views/pages/explorer.py": TABLE_PARAMS, "lab/views/pages/binomial_lab.py": (PREDICTION_PARAM,)}
# Flags: any value other than their "on" words means off, so they are never refused (checked: no exception).
HAND_FLAGS = {
    "lab/views/pages/explorer.py": (REVEAL_PARAM,),
    "lab/views/pages/binomial_lab.py": ("inspect", "reset", "sum"),
}
LINKED = {
    page.file: [c for model in page_models(page.file) if model.IN_LINK for c in model.CONTROLS]
    for page in (*APP_PAGES, *LINKED_PAGES)
}
PAGES = {
    page: (*(c.param for c in controls if c.kind != "flag"), *HAND_ENCODED.get(page, ()))
    for page, controls in LINKED.items()
    if controls
}
FLAGS = {page: (*(c.param for c in LINKED[page] if c.kind == "flag"), *HAND_FLAGS.get(page, ())) for page in PAGES}
# No URL state (their models' controls are not in the link, or a page without a model listed here): any parameter
# is ignored.
WITHOUT_MODEL: tuple[str, ...] = ("lab/views/lesson/glossary.py",)
QUIET_PAGES = (
    *(page.file for page in APP_PAGES if page_models(page.file) and page.file not in PAGES),
    *WITHOUT_MODEL,
)
# A class's links carry codes and secrets: their refusals are tested with the class (a page of its own file).
OWN_TESTS = {
    "lab/views/lesson/start_here.py": "tests/test_pages_lesson.py",  # ?chapter=, refused by name there
    "lab/views/live_class/classroom.py": "tests/test_pages_classroom.py",
    "lab/views/live_class/projector.py": "tests/test_pages_classroom.py",
}


def test_every_page_of_the_app_has_its_links_tested():
    covered = [*PAGES, *QUIET_PAGES, *OWN_TESTS]
    untested = "a page without a model that declares its controls: list it in WITHOUT_MODEL or OWN_TESTS"
    assert sorted(covered) == sorted(page.file for page in (*APP_PAGES, *LINKED_PAGES)), untested
    # models without link state
    assert {"lab/views/pages/numerics.py", "lab/views/pages/pitfalls.py"} <= set(QUIET_PAGES)
    assert PAGES["lab/views/pages/exercises.py"] == ("seed", "count", "level", "tab")
    blocks = ("bk_model", "bk_variant", "bk_k", "bk_l", "bk_seed", "bk_alpha", "bk_c")
    assert PAGES["lab/views/pages/blocks.py"] == blocks
    assert sorted(PAGES["lab/views/pages/explorer.py"]) == ["p", "q", "r", "scenario", "tokens", "z"]
    assert FLAGS["lab/views/pages/explorer.py"] == ("edit", "reveal")
    assert PAGES["lab/views/pages/binomial_lab.py"] == ("lab_p", "n", "pred")
    assert PAGES["lab/views/pages/sampling.py"][:4] == ("sl_scenario", "sl_steps", "sl_seed", "sl_guess")


def open_page(page: str, params: dict[str, str]) -> AppTest:
    """As a link would."""
    return open_linked_page(page, params)


def warnings_text(at) -> str:
    """Every warning as the reader sees it (messages holding link text are markdown-escaped)."""
    return "\n".join(w.value.replace("\\", "") for w in at.warning)


@pytest.mark.parametrize("value", list(HOSTILE.values()), ids=list(HOSTILE))
@pytest.mark.parametrize("page", list(PAGES))
def test_every_parameter_refused_by_name_without_an_exception(page, value):
    params = {name: value for name in (*PAGES[page], *FLAGS.get(page, ()))}
    at = open_page(page, params)  # asserts at.exception is empty
    text = warnings_text(at)
    for name in PAGES[page]:
        assert name in text, (name, text[:2000])
    assert len(text) < 20_000  # a 1 MB value is never echoed whole
    assert not at.exception


@pytest.mark.parametrize("page", list(PAGES))
def test_a_1mb_value_is_dropped_without_an_exception(page):
    at = open_page(page, {PAGES[page][0]: ONE_MB})
    assert not at.exception
    assert len(warnings_text(at)) < 20_000


@pytest.mark.parametrize("page", QUIET_PAGES)
def test_pages_without_url_state_ignore_any_parameter(page):
    at = open_linked_page(page, {"present": "7" * 100_000, "k": "inf", "gaps": "1e-1_000_000"})
    assert not at.exception
