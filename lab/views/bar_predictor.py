"""The bar predictor: the student draws the bars they predict (one Streamlit component, ``st.components.v2``, for
every page where a user predicts bars).

Its HTML, CSS and JavaScript are the files in lab/views/assets/ (read once per process; served by this app, each
browser fetches the code once: lab/views/component_code.py). The browser sends the bars once per release (a pointer
lifted, a key let go) as a trigger; the callback checks them (lab/models/bars.py: a crafted message can put any JSON
there), then writes them into the page's own boxes or sliders, the ones a student types exact values in: the page
reads its prediction from those as before, so dragging updates the boxes, and typing updates the bars (they are
drawn from the page's values on every run). A refused message is named on the page and the last valid bars stay.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from pathlib import Path

import streamlit as st

from lab.charts import palette
from lab.core.formatting import markdown_escape
from lab.models.bars import BarsRefused, read_bars
from lab.views import component_code

_ASSETS = Path(__file__).with_name("assets")
_component = component_code.component(
    "residual_lab.bar_predictor",
    html=(_ASSETS / "bar_predictor.html").read_text(encoding="utf-8"),
    css=(_ASSETS / "bar_predictor.css").read_text(encoding="utf-8"),
    js=(_ASSETS / "bar_predictor.js").read_text(encoding="utf-8"),
    isolate_styles=False,  # in the page's own DOM: document.activeElement is the focused bar, axe scans it as is
)
# (name, colour) pairs, not a dict: Streamlit asks of every dict in a component's data whether it is a data frame
# (about 100 µs), and every page of a class draws the bars at the same moment
COLORS = (
    ("bar", palette.PREDICTION),  # the student's guess, as on every chart, with the same cross-hatch
    ("paper", palette.PAPER),
    ("text", palette.TEXT),
    ("axis", palette.AXIS),
    ("grid", palette.GRID),
)
REFUSED = "_bar_predictor_refused_"  # session key prefix: a refusal to show on the next run


def _on_bars(key: str, labels: tuple[str, ...], boxes: tuple[str, ...], on_set: Callable | None) -> None:
    """The bars sent on release: checked, then written into the page's boxes (a callback may set widget values)."""
    payload = (st.session_state.get(key) or {}).get("bars")
    try:
        heights = read_bars(payload, labels)
    except BarsRefused as exc:
        st.session_state[REFUSED + key] = f"{exc} Your last bars stay."
        return
    st.session_state.pop(REFUSED + key, None)
    for box, height in zip(boxes, heights):
        st.session_state[box] = height
    if on_set is not None:
        on_set(heights)


def bar_predictor(
    key: str,
    labels: Sequence[str],
    values: Sequence[float],
    boxes: Sequence[str],
    *,
    large: bool = False,
    disabled: bool = False,
    on_set: Callable[[list[float]], None] | None = None,
    sum_note: str = ".",
    short_labels: Sequence[str] = (),
    redraws_page: bool = False,
) -> None:
    """Draw the bars ``labels`` at heights ``values`` (the page's current prediction); a release writes the new
    heights into the widget keys ``boxes`` (one per bar) and calls ``on_set(heights)``. ``large``: presentation
    mode. ``sum_note`` follows "Your bars add up to 1.05" (e.g. " (a residual adds up to 1)."). ``short_labels``:
    the names drawn under bars too narrow for ``labels`` (``3`` for ``P(3)``; the slider keeps the long name).
    ``redraws_page``: also stands in for lab.views.follow.page_redraw (its trigger reruns what holds the bars)."""
    labels = tuple(str(label) for label in labels)
    refused = st.session_state.pop(REFUSED + key, "")
    if refused:
        st.error(markdown_escape(refused), icon=":material/error:")
    # tuples, not lists: Streamlit asks of every list in a component's data whether it is a data frame (25 µs each)
    data = {
        "key": key,
        "labels": labels,
        "short": tuple(str(label) for label in short_labels),
        "values": tuple(round(float(v), 4) for v in values),
        "large": large,
        "disabled": disabled,
        "colors": COLORS,
        "sum_note": sum_note,
        "refused": refused,
        "group": "Your bars: " + ", ".join(labels),
        "bar_word": "Your bar",
    }
    callbacks = {"on_bars_change": None if disabled else (lambda: _on_bars(key, labels, tuple(boxes), on_set))}
    if redraws_page:
        data["redraws_page"] = True
        callbacks["on_redraw_change"] = lambda: None  # the trigger itself reruns what holds the bars
    _component(key=key, data=data, **callbacks)
