"""Widget values a browser never sends, as a crafted WebSocket message could: every page stays free of an
exception box. Each case sends the raw ``WidgetState`` a message would carry (a string for a number input,
inf for a whole number, a scenario name that is not in the list), through AppTest.

Without lab/views/patches/widget_guard.py (checked by removing its install() call, not committed) the number-input
cases fail inside Streamlit before the page's code runs: TypeError and OverflowError in number_input's
deserializer."""

from __future__ import annotations

import pytest
from pagetest import open_linked_page, page_models
from streamlit.proto.WidgetStates_pb2 import WidgetState
from streamlit.testing.v1 import AppTest

from lab.views.shell import LINKED_PAGES, PAGES

INF, NAN = float("inf"), float("nan")
FORGED = {
    "choice": ("string_value", "../../etc/passwd"),
    "whole": ("double_value", INF),
    "probability": ("string_value", "abc"),
    "number": ("string_value", "abc"),
    "range": ("string_value", "abc"),  # a range slider's state is two numbers
    "text": ("string_value", "A=1e-1_000_000"),  # text its own parser refuses (lab.core.numbers' exponent limit)
    "flag": ("string_value", "abc"),  # a toggle's state is true or false
}
# Controls whose widget AppTest cannot forge, and why.
UNFORGEABLE = {"tab": "the Exercises tabs (st.tabs): AppTest gives them no widget state"}
CASES = [
    ("lab/views/pages/explorer.py", "ex_scenario", "string_value", "markov-three"),  # a model, not a scenario
    ("lab/views/pages/explorer.py", "ex_z", "double_value", NAN),
    ("lab/views/pages/binomial_lab.py", "bl_p", "double_value", INF),
    ("lab/views/pages/sampling.py", "sl_steps", "string_value", "abc"),
    ("lab/views/pages/blocks.py", "bk_variant", "string_value", "nope"),
    ("lab/views/pages/exercises.py", "level", "string_value", "../x"),
    ("lab/views/pages/pitfalls.py", "pit_block", "string_value", "abc"),
    ("lab/views/pages/pitfalls.py", "pit_draft_variant", "string_value", "nope"),
    ("lab/views/pages/pitfalls.py", "pit_draft_guess::no-update", "string_value", "maybe"),
    ("lab/views/lesson/start_here.py", "ls_1_pred_0", "double_value", INF),  # a box's text sent as a number
    ("lab/views/lesson/start_here.py", "ls_1_answer", "string_value", "9" * 100_000),
    # every control each page's models declare (lab/models/<page>.py, CONTROLS), forged by its kind; a control
    # with a widget per token at its first
    *(
        (page.file, control.widget_key(), *FORGED[control.kind])
        for page in (*PAGES, *LINKED_PAGES)
        for model in page_models(page.file)
        for control in model.CONTROLS
        if control.key not in UNFORGEABLE
    ),
]
KINDS = ("selectbox", "number_input", "slider", "text_input", "toggle", "radio")
# The app's pages (lab/views/shell.py) without a case here, and why.
NOT_HERE = {
    "lab/views/live_class/classroom.py": "its codes and names are typed text, refused by tests/test_pages_classroom.py",
    "lab/views/live_class/projector.py": "it has no widgets",
    "lab/views/lesson/glossary.py": "it has no widgets",
}


def test_every_page_of_the_app_has_a_forged_case():
    untested = "a page without a model that declares its controls: give it a case or list it in NOT_HERE"
    assert {page.file for page in (*PAGES, *LINKED_PAGES)} - set(NOT_HERE) == {page for page, *_ in CASES}, untested


def forge(at: AppTest, key: str, field: str, value) -> None:
    """Make the widget with ``key`` send ``value`` in ``field`` on the next run, as a crafted message would."""
    for kind in KINDS:
        try:
            node = getattr(at, kind)(key=key)
            break
        except KeyError:
            continue
    else:
        raise AssertionError(f"no widget with key {key}")

    class Forged(type(node)):
        @property
        def _widget_state(self) -> WidgetState:
            state = WidgetState()
            state.id = self.id
            setattr(state, field, value)
            return state

    node.__class__ = Forged


@pytest.mark.parametrize("page, key, field, value", CASES, ids=[f"{k}={v!r}" for _, k, _, v in CASES])
def test_forged_widget_value_never_reaches_an_exception_box(page, key, field, value):
    # the Exercises assignment's controls are drawn in its Teacher tab only
    at = open_linked_page(page, {"tab": "Teacher"} if page == "lab/views/pages/exercises.py" else {})
    forge(at, key, field, value)
    at.run()
    assert not at.exception
    at.run()  # and the page keeps working afterwards
    assert not at.exception


def test_forged_scenario_in_the_callback_is_named_and_the_scenario_stays():
    at = open_linked_page("lab/views/pages/explorer.py")
    forge(at, "ex_scenario", "string_value", "../../etc/passwd")
    at.run()
    assert not at.exception
    assert any("unknown scenario" in i.value for i in at.info)
    assert at.selectbox(key="ex_scenario").value == "bernoulli-residual"
