"""An exercises assignment's three controls (seed, number of problems, level), drawn by one function for the
Class page's "Open an activity" form and the Exercises page's Teacher tab: labels and ranges from the Exercises
page's declared controls (lab.models.exercises.ExercisesModel.CONTROLS), each page's own widget keys."""

from __future__ import annotations

import streamlit as st

from lab.models.exercises import ExercisesModel
from lab.teaching.exercises import LEVEL_TITLES

ASSIGNMENT = ("seed", "count", "level")  # the assignment's controls, in the order they are drawn
_CONTROLS = {control.field: control for control in ExercisesModel.CONTROLS}
_HELP = {"seed": "Any whole number"}


def assignment_fields(places, keys: tuple[str, str, str], *, on_change=None, titled_levels: bool = False) -> None:
    """The seed, count and level widgets in ``places`` (three containers, in that order; one may hold two), under
    ``keys`` (the same order), each of which starts from its value in st.session_state (start_from, before).
    ``on_change``: called after any of them changes. ``titled_levels``: the level box shows each level's title
    (else its short name, the one a link carries: the page captions its title)."""
    for place, field, key in zip(places, ASSIGNMENT, keys):
        control = _CONTROLS[field]
        if control.kind == "choice":
            titles = LEVEL_TITLES.get if titled_levels else str
            place.selectbox(control.label, list(control.options()), key=key, on_change=on_change, format_func=titles)
        else:
            low, high = control.low, control.maximum({})
            place.number_input(control.label, low, high, step=1, key=key, on_change=on_change, help=_HELP.get(field))


def start_from(values: dict) -> None:
    """Each widget's first value (``values``: key -> value), for a key not in st.session_state yet."""
    for key, value in values.items():
        if key not in st.session_state:
            st.session_state[key] = value
