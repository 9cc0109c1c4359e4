"""An exercises assignment's three controls (seed, number of problems, level), drawn by one function for the
Class page's "Open an activity" form and the Exercises page's Teacher tab: labels and ranges from the Exercises
page's declared controls (lab.models.exercises.ExercisesModel.CONTROLS), each page's own widget keys."""

from __future__ import annotations

import streamlit as st

from lab.i18n import N_
from lab.models.exercises import ExercisesModel
from lab.teaching.exercises import LEVEL_TITLES
from lab.views.ui.language import texts

ASSIGNMENT = ("seed", "count", "level")  # the assignment's controls, in the order they are drawn
_CONTROLS = {control.field: control for control in ExercisesModel.CONTROLS}
_HELP = {"seed": N_("Any whole number")}


def assignment_fields(places, keys: tuple[str, str, str], *, on_change=None, titled_levels: bool = False) -> None:
    """The seed, count and level widgets in ``places`` (three containers, in that order; one may hold two), under
    ``keys`` (the same order), each of which starts from its value in st.session_state (start_from, before).
    ``on_change``: called after any of them changes. ``titled_levels``: the level box shows each level's title
    (else its short name, the one a link carries: the page captions its title)."""
    _ = texts()
    for place, field, key in zip(places, ASSIGNMENT, keys):
        control = _CONTROLS[field]
        if control.kind == "choice":
            titles = (lambda level: _(LEVEL_TITLES[level]) if level in LEVEL_TITLES else str(level)) if titled_levels \
                else str
            place.selectbox(_(control.label), list(control.options()), key=key, on_change=on_change,
                            format_func=titles)
        else:
            low, high = control.low, control.maximum({})
            help_text = _(_HELP[field]) if field in _HELP else None
            place.number_input(_(control.label), low, high, step=1, key=key, on_change=on_change, help=help_text)


def start_from(values: dict) -> None:
    """Each widget's first value (``values``: key -> value), for a key not in st.session_state yet."""
    for key, value in values.items():
        if key not in st.session_state:
            st.session_state[key] = value
