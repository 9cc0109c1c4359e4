"""The bar predictor: the student draws the bars they predict (one Streamlit component, ``st.components.v2``, for
every page where a user predicts bars).

Its HTML, CSS and JavaScript are the files in lab/views/ui/assets/ (read once per process; served by this app, each
browser fetches the code once: lab/views/serving/component_code.py). The browser sends the bars once per release (a
pointer
lifted, a key let go) as a trigger; the callback checks them (lab/models/bars.py: a crafted message can put any JSON
there), then writes them into the page's own boxes or sliders, the ones a student types exact values in: the page
reads its prediction from those as before, so dragging updates the boxes, and typing updates the bars (they are
drawn from the page's values on every run). A refused message is named on the page and the last valid bars stay.

With a ``form`` (a class page) the boxes and Submit are the component's own: nothing goes to the server until
Submit, which sends the text of each box (checked by lab/models/bars.py, then read by the class's one reader of
numbers). Every page of a class draws one element for its prediction instead of six, and a drag costs no rerun.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path

import streamlit as st

from lab.charts import palette
from lab.core.formatting import markdown_escape
from lab.i18n import N_, SOURCE
from lab.models.bars import BarsRefused, read_bars, read_boxes
from lab.views.serving import component_code
from lab.views.ui import language

_ASSETS = Path(__file__).with_name("assets")
_component = component_code.component(
    "residual_lab.bar_predictor",
    html=(_ASSETS / "bar_predictor.html").read_text(encoding="utf-8"),
    css=(_ASSETS / "bar_predictor.css").read_text(encoding="utf-8"),
    js=(_ASSETS / "bar_predictor.js").read_text(encoding="utf-8"),
    isolate_styles=False,  # in the page's own DOM: document.activeElement is the focused bar, axe scans it as is
)
# (name, colour) pairs, not a dict: Streamlit asks of every dict in a component's data whether it is a data frame
# (a costly question: docs/decisions/0005), and every page of a class draws the bars at the same moment
COLORS = (
    ("bar", palette.PREDICTION),  # the student's guess, as on every chart, with the same cross-hatch
    ("paper", palette.PAPER),
    ("text", palette.TEXT),
    ("axis", palette.AXIS),
    ("grid", palette.GRID),
)
# the help under the bars (its English is also in bar_predictor.html, shown before the first data arrive)
HELP = N_("Drag a bar's top, or press a height on its column (on a touch screen, tap the column first: a swipe "
          "elsewhere scrolls the page). Keyboard: Tab to a bar, then arrow keys (0.01), Page Up / Page Down (0.1), "
          "Home (0), End (1).")
REFUSED = "_bar_predictor_refused_"  # session key prefix: a refusal to show on the next run
SUBMIT_RAN = "_bar_predictor_submitted_"  # session key prefix: Submit's callback ran before this run


@dataclass(frozen=True)
class BoxesForm:
    """The boxes and Submit drawn with the bars: one box per field (a bar's own, or a value with no bar, such as
    Z), showing ``texts`` (None: empty). The student's drawing and typing stay in the browser until ``stamp``
    changes (what the server holds for them changed: a save, a new round). ``on_submit`` gets each box's text."""

    fields: tuple[str, ...]
    texts: tuple[str | None, ...]
    stamp: str
    on_submit: Callable[[list[str | None]], None]
    submit: str = "Submit"
    word: str = "Predict"  # a box is labelled "Predict r(B)"


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


def _on_submit(key: str, form: BoxesForm) -> None:
    """Submit: the boxes' text checked for shape (a crafted message may hold anything), then handed on."""
    payload = (st.session_state.get(key) or {}).get("submit")
    st.session_state[SUBMIT_RAN + key] = _submit(key, form, payload)


def _submit(key: str, form: BoxesForm, payload: object) -> bool:
    """Whether the boxes' text was handed on (a refused shape is said on the page instead)."""
    try:
        texts = read_boxes(payload, form.fields)
    except BarsRefused as exc:
        st.session_state[REFUSED + key] = f"{exc} Your boxes keep what you typed."
        return False
    st.session_state.pop(REFUSED + key, None)
    form.on_submit(texts)
    return True


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
    form: BoxesForm | None = None,
    closed: str = "",
) -> str | None:
    """Draw the bars ``labels`` at heights ``values`` (the page's current prediction); a release writes the new
    heights into the widget keys ``boxes`` (one per bar) and calls ``on_set(heights)``. ``large``: presentation
    mode. ``sum_note`` follows "Your bars add up to 1.05" (e.g. " (a residual adds up to 1)."). ``short_labels``:
    the names drawn under bars too narrow for ``labels`` (``3`` for ``P(3)``; the slider keeps the long name).
    ``redraws_page``: also stands in for lab.views.live_class.follow.page_redraw (its trigger reruns what holds the
    bars).
    ``form``: the boxes and Submit are drawn with the bars (BoxesForm). ``closed``: why nothing can be submitted any
    more (said under Submit; the bars are disabled too). Returns how a Submit arrived in this run:
    "callback" (handed on before this run), "here" (a new session after a restart knows no callback for it:
    handled here, once; a refusal is then said in the next run), or None (none, or refused before this run: said
    above)."""
    labels = tuple(str(label) for label in labels)
    _ = language.texts()
    refused = st.session_state.pop(REFUSED + key, "")
    if refused:
        st.error(markdown_escape(refused), icon=":material/error:")
    # tuples, not lists: Streamlit asks of every list in a component's data whether it is a data frame
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
        "group": _("Your bars: {labels}", labels=", ".join(labels)),
        "bar_word": _("Your bar"),
    }
    if language.page_code() != SOURCE:  # the HTML's own words are English
        data.update(help=_(HELP), sum_words=_("Your bars add up to"), decimal_comma=language.decimal_comma())
    disabled = disabled or bool(closed)
    if closed:
        data.update(disabled=True, closed=closed)
    callbacks = {"on_bars_change": None if disabled else (lambda: _on_bars(key, labels, tuple(boxes), on_set))}
    if redraws_page:
        data["redraws_page"] = True
        callbacks["on_redraw_change"] = lambda: None  # the trigger itself reruns what holds the bars
    if form is not None:
        # flat, not a dict: Streamlit asks of each value of the data whether it is a data frame, which is costly for a
        # dict and cheap for a tuple or a text (docs/decisions/0005-the-prediction-is-the-bars.md)
        data.update(
            form_fields=form.fields, form_values=form.texts, form_stamp=form.stamp, form_submit=form.submit,
            form_word=form.word,
        )
        callbacks["on_bars_change"] = None  # the bars stay in the browser until Submit
        callbacks["on_submit_change"] = None if disabled else (lambda: _on_submit(key, form))
    result = _component(key=key, data=data, **callbacks)
    if form is None:
        return None
    ran = st.session_state.pop(SUBMIT_RAN + key, None)
    if ran is not None:
        return "callback" if ran else None
    sent = result.get("submit") if result is not None else None
    if sent is None or disabled:
        return None
    _submit(key, form, sent)  # sent in a session that had not drawn these bars yet: no callback was known
    return "here"
