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
from lab.core.errors import said
from lab.core.formatting import markdown_escape
from lab.i18n import N_
from lab.teaching.class_question import MAX_TITLE, SECOND_TARGET, ClassQuestionError, class_question, own_question
from lab.teaching.exercises import DEFAULT_COUNT, DEFAULT_LEVEL
from lab.views.live_class.assignment_form import assignment_fields, start_from
from lab.views.live_class.database import engine
from lab.views.live_class.question import draw_question
from lab.views.live_class.session_keys import Keys
from lab.views.live_class.teacher_desk import change, teacher_action, the_desk
from lab.views.ui import language
from lab.views.ui.accessibility import subsection

OPEN_HEADING = N_("Open an activity for the class")


def _own_source() -> tuple[str, str]:
    """(the source of the teacher's own question typed in the form, "") or ("", why it cannot be asked)."""
    form = st.session_state
    keys = (Keys.OWN_TITLE, Keys.OWN_TOKENS, Keys.OWN_P, Keys.OWN_Q)
    title, tokens, p, q = (str(form.get(key) or "") for key in keys)
    if language.decimal_comma():  # the page's lists: "0,5; 0,25" (a comma is the decimal mark), read as "0.5, 0.25"
        tokens, p, q = tokens.replace(";", ","), language.list_text_in(p, False), language.list_text_in(q, False)
    try:
        return own_question(title, tokens, p, q), ""
    except ClassQuestionError as exc:
        return "", language.say(exc)


def _open_activity() -> None:
    st.session_state.pop(Keys.NEW_CLASS, None)  # the class is under way: the teacher link folds away
    form = st.session_state
    kind, source = form.get(Keys.KIND), form.get(Keys.SOURCE, WORKED_EXAMPLE)
    if kind == OWN_LABEL:
        source, refusal = _own_source()
        if refusal:  # said above the form; what was typed stays in its boxes
            _ = language.texts()
            st.session_state[Keys.TEACHER_ERROR] = _("Not opened: {problem}", problem=refusal)
            return
        kind = PREDICT_LABEL
    seed, level, count = form.get(Keys.SEED), form.get(Keys.LEVEL), form.get(Keys.COUNT)
    timer = form.get(Keys.TIMER) or None  # checked by the store (one of TIMER_CHOICES)
    desk = the_desk()
    change(
        lambda on_pending: desk.open_activity(engine, kind, source, seed, level, count, timer, on_pending=on_pending),
        said("Open activity"),
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
        _ = language.texts()
        st.session_state[Keys.TEACHER_ERROR] = _("Not added to the plan: {problem}", problem=language.say(exc))
        return
    teacher_action(Do.add_to_plan, item)


def _source_labels(sources) -> dict[str, str]:
    """Each source in the form's list in words, in the page's language (made in the run: a format_func may be
    called outside it)."""
    _ = language.texts()

    def label(source: str) -> str:
        if source == WORKED_EXAMPLE:
            return _("Worked example: {scenario}, bars r(B) and r(C)", scenario="bernoulli-residual")
        if source.startswith(SECOND_TARGET):
            return _("Two drafts, the second candidate's target p₂: {scenario}", scenario=source[len(SECOND_TARGET):])
        return source

    return {source: label(source) for source in sources}



# --- the dashboard's panels ------------------------------------------------------------------------


def timer_words(seconds: int) -> str:
    """A countdown's length as the form offers it: "Off", "30 s", "2 min" (in the page's language)."""
    _ = language.texts()
    if not seconds:
        return _("Off")
    if seconds % 60 == 0 and seconds >= 120:
        return _("{count} min", count=seconds // 60)
    return _("{count} s", count=seconds)


def open_activity_form() -> None:
    """What the class does next: predict the bars of a scenario, or an exercises assignment."""
    _ = language.texts()
    with st.container(border=True):
        subsection(_(OPEN_HEADING))
        kinds = {kind: _(kind) for kind in (PREDICT_LABEL, OWN_LABEL, ASSIGNMENT_LABEL)}
        kind = st.radio(
            _("Activity"), tuple(kinds), key=Keys.KIND, horizontal=True, format_func=lambda k: kinds.get(k, str(k))
        )
        if kind == PREDICT_LABEL:
            sources = source_choices()
            labels = _source_labels(sources)
            st.selectbox(
                _("Predict the bars of"),
                sources,
                key=Keys.SOURCE,
                format_func=lambda source: labels.get(source, str(source)),
            )
        elif kind == OWN_LABEL:
            own_question_fields()
        else:
            seed, level, count = st.columns(3)
            start_from({Keys.SEED: 1, Keys.COUNT: DEFAULT_COUNT, Keys.LEVEL: DEFAULT_LEVEL})
            assignment_fields((seed, count, level), (Keys.SEED, Keys.COUNT, Keys.LEVEL), titled_levels=True)
        timers = {seconds: timer_words(seconds) for seconds in (0, *TIMER_CHOICES)}
        st.selectbox(
            _("Countdown for each round"),
            tuple(timers),
            key=Keys.TIMER,
            format_func=lambda seconds: timers.get(seconds, str(seconds)),
            help=_("When it ends the vote locks; you can add time while it runs."),
        )
        open_now, add = st.columns(2)
        open_now.button(_("Open for the class"), key=Keys.OPEN, type="primary", on_click=_open_activity)
        add.button(_("Add to the plan"), key=Keys.PLAN_ADD, on_click=_add_to_plan, help=_("The lesson plan is below."))


OWN_LABEL = N_("Your own question")
ASSIGNMENT_LABEL = N_("Exercises assignment")


def own_question_fields() -> None:
    """A question of the teacher's own: tokens, target p and draft q as comma lists (checked as the Residual explorer
    checks its table), and a preview of what the class will see (never the answer)."""
    _ = language.texts()
    comma = language.decimal_comma()
    separator = "; " if comma else ", "
    st.text_input(_("Title (optional)"), key=Keys.OWN_TITLE, max_chars=MAX_TITLE,
                  placeholder=_("e.g. {example}", example=_("Three words")))  # fmt: skip
    st.text_input(
        _("Tokens, separated by semicolons") if comma else _("Tokens, separated by commas"), key=Keys.OWN_TOKENS,
        placeholder=_("e.g. {example}", example=separator.join("XYW")),
    )
    p, q = st.columns(2)
    p.text_input(_("Target p, in the same order"), key=Keys.OWN_P,
                 placeholder=_("e.g. {example}", example=separator.join(("1/2", "1/4", "1/4"))))  # fmt: skip
    q.text_input(_("Draft q, in the same order"), key=Keys.OWN_Q,
                 placeholder=_("e.g. {example}", example=separator.join(("1/4", "1/4", "1/2"))))  # fmt: skip
    if not any(st.session_state.get(k) for k in (Keys.OWN_TOKENS, Keys.OWN_P, Keys.OWN_Q)):
        st.caption(_("Fractions ({fraction}) or decimals ({decimal}); p and q each add up to 1. The class predicts r "
                     "and Z.", fraction="3/4", decimal=language.number(0.75, ".2f")))  # fmt: skip
        return
    source, refusal = _own_source()
    if refusal:
        st.warning(markdown_escape(refusal))
        return
    with st.expander(_("Preview: what the class will see"), expanded=True):
        draw_question(class_question(source), Keys.OWN_PREVIEW)
