"""The dashboard's form that opens an activity for the class: a prediction of a shipped scenario, the teacher's own
question (typed as comma lists, previewed as the class will see it), or an Exercises assignment, each with an
optional countdown; Open for the class, or Add to the plan (lab.views.live_class.plan_panel). Every press runs a
TeacherDesk method through the dashboard's one callback (lab.views.live_class.teacher_desk.change)."""

from __future__ import annotations

import streamlit as st

from lab.classroom.actions import PREDICT_LABEL
from lab.classroom.actions import TeacherActions as Do
from lab.classroom.activities import ASSIGNMENT, PREDICT, WORKED_EXAMPLE, source_choices
from lab.classroom.classes import TIMER_CHOICES
from lab.classroom.plans import plan_item
from lab.classroom.refusals import ClassroomError
from lab.core.formatting import markdown_escape
from lab.teaching.class_question import MAX_TITLE, SECOND_TARGET, ClassQuestionError, class_question, own_question
from lab.teaching.exercises import DEFAULT_COUNT, DEFAULT_LEVEL
from lab.views.live_class.assignment_form import assignment_fields, start_from
from lab.views.live_class.database import engine
from lab.views.live_class.question import draw_question
from lab.views.live_class.session_keys import Keys
from lab.views.live_class.teacher_desk import change, teacher_action, the_desk
from lab.views.ui.accessibility import subsection

OPEN_HEADING = "Open an activity for the class"


def _own_source() -> tuple[str, str]:
    """(the source of the teacher's own question typed in the form, "") or ("", why it cannot be asked)."""
    form = st.session_state
    typed = [str(form.get(key) or "") for key in (Keys.OWN_TITLE, Keys.OWN_TOKENS, Keys.OWN_P, Keys.OWN_Q)]
    try:
        return own_question(*typed), ""
    except ClassQuestionError as exc:
        return "", str(exc)


def _open_activity() -> None:
    st.session_state.pop(Keys.NEW_CLASS, None)  # the class is under way: the teacher link folds away
    form = st.session_state
    kind, source = form.get(Keys.KIND), form.get(Keys.SOURCE, WORKED_EXAMPLE)
    if kind == OWN_LABEL:
        source, refusal = _own_source()
        if refusal:  # said above the form; what was typed stays in its boxes
            st.session_state[Keys.TEACHER_ERROR] = f"Not opened: {refusal}"
            return
        kind = PREDICT_LABEL
    seed, level, count = form.get(Keys.SEED), form.get(Keys.LEVEL), form.get(Keys.COUNT)
    timer = form.get(Keys.TIMER) or None  # checked by the store (one of TIMER_CHOICES)
    desk = the_desk()
    change(
        lambda on_pending: desk.open_activity(engine, kind, source, seed, level, count, timer, on_pending=on_pending),
        "Open activity",
        focus="activity",
    )


def _add_to_plan() -> None:
    """The form's activity (with its countdown) at the end of the class's lesson plan."""
    form = st.session_state
    kind, source = form.get(Keys.KIND), form.get(Keys.SOURCE, WORKED_EXAMPLE)
    try:
        if kind == OWN_LABEL:
            source, refusal = _own_source()
            if refusal:
                raise ClassroomError(refusal)
        if kind in (OWN_LABEL, PREDICT_LABEL):
            item = plan_item(PREDICT, {"source": source}, form.get(Keys.TIMER) or None)
        else:
            spec = {"seed": form.get(Keys.SEED), "level": form.get(Keys.LEVEL), "count": form.get(Keys.COUNT)}
            item = plan_item(ASSIGNMENT, spec, form.get(Keys.TIMER) or None)
    except ClassroomError as exc:
        st.session_state[Keys.TEACHER_ERROR] = f"Not added to the plan: {exc}"
        return
    teacher_action(Do.add_to_plan, item)


def _source_label(source: str) -> str:
    if source == WORKED_EXAMPLE:
        return "Worked example: bernoulli-residual, bars r(B) and r(C)"
    if source.startswith(SECOND_TARGET):
        return f"Two drafts, the second candidate's target p₂: {source[len(SECOND_TARGET):]}"
    return source



# --- the dashboard's panels ------------------------------------------------------------------------


def timer_words(seconds: int) -> str:
    """A countdown's length as the form offers it: "Off", "30 s", "2 min"."""
    if not seconds:
        return "Off"
    return f"{seconds // 60} min" if seconds % 60 == 0 and seconds >= 120 else f"{seconds} s"


def open_activity_form() -> None:
    """What the class does next: predict the bars of a scenario, or an exercises assignment."""
    with st.container(border=True):
        subsection(OPEN_HEADING)
        kind = st.radio(
            "Activity", (PREDICT_LABEL, OWN_LABEL, "Exercises assignment"), key=Keys.KIND, horizontal=True
        )
        if kind == PREDICT_LABEL:
            st.selectbox(
                "Predict the bars of",
                source_choices(),
                key=Keys.SOURCE,
                format_func=_source_label,
            )
        elif kind == OWN_LABEL:
            own_question_fields()
        else:
            seed, level, count = st.columns(3)
            start_from({Keys.SEED: 1, Keys.COUNT: DEFAULT_COUNT, Keys.LEVEL: DEFAULT_LEVEL})
            assignment_fields((seed, count, level), (Keys.SEED, Keys.COUNT, Keys.LEVEL), titled_levels=True)
        st.selectbox(
            "Countdown for each round",
            (0, *TIMER_CHOICES),
            key=Keys.TIMER,
            format_func=timer_words,
            help="When it ends the vote locks; you can add time while it runs.",
        )
        open_now, add = st.columns(2)
        open_now.button("Open for the class", key=Keys.OPEN, type="primary", on_click=_open_activity)
        add.button("Add to the plan", key=Keys.PLAN_ADD, on_click=_add_to_plan, help="The lesson plan is below.")


OWN_LABEL = "Your own question"


def own_question_fields() -> None:
    """A question of the teacher's own: tokens, target p and draft q as comma lists (checked as the Residual explorer
    checks its table), and a preview of what the class will see (never the answer)."""
    st.text_input("Title (optional)", key=Keys.OWN_TITLE, max_chars=MAX_TITLE, placeholder="e.g. Three words")
    st.text_input("Tokens, separated by commas", key=Keys.OWN_TOKENS, placeholder="e.g. X, Y, W")
    p, q = st.columns(2)
    p.text_input("Target p, in the same order", key=Keys.OWN_P, placeholder="e.g. 1/2, 1/4, 1/4")
    q.text_input("Draft q, in the same order", key=Keys.OWN_Q, placeholder="e.g. 1/4, 1/4, 1/2")
    if not any(st.session_state.get(k) for k in (Keys.OWN_TOKENS, Keys.OWN_P, Keys.OWN_Q)):
        st.caption("Fractions (3/4) or decimals (0.75); p and q each add up to 1. The class predicts r and Z.")
        return
    source, refusal = _own_source()
    if refusal:
        st.warning(markdown_escape(refusal))
        return
    with st.expander("Preview: what the class will see", expanded=True):
        draw_question(class_question(source), Keys.OWN_PREVIEW)
