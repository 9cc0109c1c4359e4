"""What a student does in a class activity, drawn on their page (lab/views/live_class/student.py decides which):
a prediction (the bars the student draws, bound to the boxes Submit saves), the exact answer beside it once
revealed, the lines saying the round and what is saved, and an assignment's problems with their answer boxes.
Every submission goes through lab.classroom.actions (StudentSeat)."""

from __future__ import annotations

from functools import partial

import streamlit as st

from lab.classroom.actions import ActivityView, Feedback, StudentSeat, StudentState, clock
from lab.core.errors import said
from lab.core.formatting import box_text, fraction_text, markdown_escape, markdown_table
from lab.i18n import N_
from lab.teaching.exercises import BRANCH_NAMES, BRANCH_OPTIONS, worked_solution
from lab.views.live_class.common import WAIT_FOR_PENDING, keep_pending, may_send
from lab.views.live_class.database import engine
from lab.views.live_class.follow import lends_page_redraw, shown_line
from lab.views.live_class.once_per_server import pq_table
from lab.views.live_class.question import answer_markdown, draw_question
from lab.views.live_class.session_keys import Keys
from lab.views.ui import language
from lab.views.ui.answers import typed_answer
from lab.views.ui.bar_predictor import BoxesForm, bar_predictor
from lab.views.ui.charts import chart, figure, show_feedback
from lab.views.ui.countdown import countdown
from lab.views.ui.presentation import is_presenting


def submitted_without_callback(pressed: bool, submit, *args) -> None:
    """A form's Submit whose callback did not run: the first press on a page whose server restarted (or whose
    replica died) under it arrives in a new session that has not drawn the form yet, so Streamlit knows no
    callback for it, yet the button reads as pressed. Save it here, then draw the page again from the database:
    the first Submit after a reconnect is saved (or says why not), never dropped."""
    ran = st.session_state.pop(Keys.SUBMIT_RAN, False)
    if pressed and not ran:
        submit(*args)
        st.session_state.pop(Keys.SUBMIT_RAN, None)
        st.rerun()


def shown_round(activity_id: int, drawn_with: int) -> int:
    """The round a Submit is saved for: the one the page shows. A new round redraws only the live part (it says
    "Round 2: vote again"), not the form whose callback arguments hold the round it was drawn with; the live part
    notes the round it drew (Keys.ROUND_SHOWN). The database refuses a Submit for another round than its own."""
    shown = st.session_state.get(Keys.ROUND_SHOWN)
    return shown[1] if isinstance(shown, tuple) and shown[0] == activity_id else drawn_with


def _submit_prediction(code: str, token: str, activity_id: int, fields: tuple[str, ...], round_number: int, texts):
    """Submit's callback: the boxes' ``texts`` (checked for shape by the bar predictor) saved for the round shown."""
    if not may_send():
        st.session_state[Keys.FEEDBACK] = Feedback("warning", WAIT_FOR_PENDING)
        return
    st.session_state[Keys.FEEDBACK] = StudentSeat(code, token).submit_prediction(
        engine, activity_id, fields, texts, shown_round(activity_id, round_number),
        keep_pending(said("Your prediction")),
        decimal_comma=language.decimal_comma(),
    )


def _submit_answer(code: str, token: str, activity_id: int, number: int) -> None:
    st.session_state[Keys.SUBMIT_RAN] = True
    if not may_send():
        st.session_state[Keys.answer_feedback(number)] = Feedback("warning", WAIT_FOR_PENDING)
        return
    typed = typed_answer(st.session_state.get(Keys.answer(activity_id, number)) or "")
    st.session_state[Keys.answer_feedback(number)] = StudentSeat(code, token).submit_answer(
        engine, activity_id, number, typed, keep_pending(said("Your answer to problem {number}", number=number))
    )


def vote_again_note(activity: ActivityView, state: StudentState) -> dict:
    """Round 2 or later: vote again, with the student's round 1 prediction (a shown_line)."""
    spec = activity.spec
    _ = language.texts()
    text = _("Talk it over with your neighbour, then submit your prediction again (the same or a new one).")
    if state.earlier:
        # "0.40 for r(B)", as the saved caption: before the reveal nothing on the page reads as a statement of r
        text = _("{talk} Your round 1 prediction: {values}.", talk=text, values=values_for(spec.fields, state.earlier))
    return shown_line(text, bold=_("Round {round}: vote again.", round=activity.round))


def values_for(fields, values) -> str:
    """``0.40 for r(B), 0.60 for r(C)`` in the page's language: a prediction, never read as a statement of r."""
    _ = language.texts()
    return ", ".join(
        _("{value} for {field}", value=language.number(float(v), ".2f"), field=f) for f, v in zip(fields, values)
    )


def prediction_panel(state: StudentState, code: str, token: str) -> None:
    """The bars the student draws, a box per predicted value bound to them, and Submit, all one element (the bar
    predictor's BoxesForm: every page of the class draws it at the same moment); disabled once locked or ended. In
    the activity part (a fragment): a press there after the server restarted runs the whole page
    (lab.views.patches.fragment_fallback), and the bar predictor saves it then (test_classroom_faults_browser)."""
    activity = state.activity
    fields = activity.spec.fields
    start = state.prediction or state.earlier or ()
    saved = [start[i] if i < len(start) else None for i in range(len(fields))]
    comma = language.decimal_comma()
    texts = tuple(None if v is None else box_text(v, decimal_comma=comma) for v in saved)
    _ = language.texts()
    bars = [field for field in fields if field != "Z"]  # Z: a box, no bar
    heights = [float(v or 0) for field, v in zip(fields, saved) if field != "Z"]
    submit = partial(_submit_prediction, code, token, activity.id, fields, activity.round)
    # what the database holds for this student changed (a save here or in another tab, a new round): the boxes
    # show it; until then they keep what the student drew or typed, through every rerun. The student's row is in
    # it too: on a shared computer the next student in the same tab does not get the last one's unsaved text back
    stamp = f"{state.student_id}/{activity.id}/{activity.round}/{state.saved_at or ''}"
    arrived = bar_predictor(
        Keys.bars(activity.id), bars, heights, (),
        large=is_presenting(), disabled=not state.open, redraws_page=lends_page_redraw(),
        form=BoxesForm(fields, texts, stamp, submit, submit=_("Submit"), word=_("Predict")),
        sum_note=_(" (a distribution's bars add up to 1)."),
        closed=closed_reason(activity) if state.open else "",
        short_labels=activity.spec.tokens,  # "dog" under a column too narrow for "r(dog)"
    )
    if arrived == "here" or (arrived == "callback" and not st.session_state.get(Keys.ACTIVITY_RERUN)):
        st.rerun()  # saved in this run: the page shows what the database now holds
    # (in the activity part's own rerun the callback saved before this run read the database: it shows it already,
    # and a whole run from inside the part would draw its live region anew, which a screen reader does not announce)


def revealed_prediction(state: StudentState) -> str:
    """The exact answer beside the student's saved prediction; returns the sentence announced."""
    activity = state.activity
    spec = activity.spec
    saved = state.prediction
    _ = language.texts()
    intro = _("**The exact answer** (revealed by your teacher):")
    bars = len(spec.tokens)
    if saved:
        # figures are cached and shared: predictions move in steps of 0.05, many students draw the same one
        prediction = tuple(float(v) for v in saved[:bars])
        values = "; ".join(
            _("{field}: yours {yours}, exact {exact}", field=f, yours=language.number(float(v), ".2f"),
              exact=fraction_text(e))
            for f, v, e in zip(spec.fields, saved, state.exact)
        )  # fmt: skip
        chart(
            figure("prediction_vs_residual", spec.tokens, prediction, state.exact[:bars], spec.symbol),
            Keys.truth_chart(activity.id),
            _("Bar chart of your prediction beside the exact answer: {values}", values=values),
            intro=intro,
        )
    else:
        st.markdown(intro)
    yours = [language.number(float(v), ".2f") for v in saved] if saved else ["–"] * len(spec.fields)
    exact = [language.exact_and_decimal(e, 3) for e in state.exact]
    # one markdown (a table, not st.table), with the answer: every student's page draws it at the same moment (the
    # reveal), and each element costs the server per page. No link to the Binomial lab: during the class this browser
    # shows the class only (lab/views/holding.py)
    st.markdown(
        markdown_table((_("value"), _("yours"), _("exact")), zip(spec.fields, yours, exact))
        + "\n\n"
        + answer_markdown(spec.answer)
    )
    values = "; ".join(
        _("{field} is {exact}, yours {yours}", field=f, exact=e, yours=v) for f, e, v in zip(spec.fields, exact, yours)
    )
    return _("Your teacher revealed the exact answer: {values}", values=values)


def live_feedback() -> None:
    """What the Submit of this run came to, at the top of the live part (see predict_student)."""
    feedback = st.session_state.pop(Keys.FEEDBACK_DRAWN, None)
    if feedback is not None:
        show_feedback(feedback)


def vote_countdown(state: StudentState) -> None:
    """A running countdown's time left (when it ends, this part runs again and draws the vote locked)."""
    left = state.activity.seconds_left()
    if left is not None and not state.activity.locked and state.open:
        countdown(left, Keys.STUDENT_COUNTDOWN)


REVEALED_CLOSED = N_("Your teacher has revealed the answer: this vote is closed, and answers can no longer change.")


def closed_reason(activity: ActivityView) -> str:
    """Why answers to the activity can no longer change ("" while they can): the reveal, the countdown's end, Lock;
    in the page's language."""
    _ = language.texts()
    if activity.revealed:
        return _(REVEALED_CLOSED)
    if activity.timed_out:
        return _("Time is up: the vote is locked, and answers can no longer change.")
    if activity.locked:
        return _("Your teacher has locked this activity: answers can no longer change.")
    return ""


def locked_note(activity: ActivityView) -> None:
    """An assignment's closed state in words (a prediction says it under its Submit: closed_reason)."""
    if activity.locked or activity.revealed:
        st.info(closed_reason(activity))


def predict_student(state: StudentState, code: str, token: str, heading: str) -> tuple[str, str]:
    """Draw a predict activity under its ``heading`` (markdown); returns what to announce: (said, refused)."""
    activity = state.activity
    draw_question(activity.spec.question, Keys.student_question(activity.id), heading=heading)
    vote_countdown(state)
    prediction_panel(state, code, token)
    feedback = st.session_state.pop(Keys.FEEDBACK, None)
    said = refused = ""
    if feedback:
        # drawn by the live part in this run (live_feedback): a later run of that part alone (a new round, the
        # reveal) leaves it out, so no stale "Saved at" sits above the new round's note
        st.session_state[Keys.FEEDBACK_DRAWN] = feedback
        text = language.say(feedback.text)
        refused, said = (text, "") if feedback.kind == "error" else ("", text)
    return said, refused  # the round, what is saved and the exact answer are drawn by student_live


def round_and_saved(state: StudentState, just_told: bool) -> list[dict]:
    """The lines under a prediction's form, in the live part (a new round redraws only that; shown_line): from
    round 2 the vote-again note, then what the database holds, whatever the boxes show (they may hold a value not
    submitted yet); nothing of the kind when the page has just said what a Submit came to (``just_told``). Notes
    the round it drew: what a Submit is saved for (shown_round)."""
    activity = state.activity
    spec = activity.spec
    st.session_state[Keys.ROUND_SHOWN] = (activity.id, activity.round)
    lines = [vote_again_note(activity, state)] if activity.round > 1 else []
    saved = state.prediction
    _ = language.texts()
    if saved:
        # "0.60 for r(B)", not "r(B) = 0.60": before the reveal nothing on the page reads as a statement of r
        values = values_for(spec.fields, saved)
        when = clock(state.saved_at)
        saved_text = (
            _("Saved in the class database: {values} (at {time}).", values=values, time=when)
            if state.exact is not None
            else _("Saved in the class database: {values} (at {time}). The exact answer appears here when your teacher "
                   "reveals it.", values=values, time=when)
        )  # fmt: skip
        lines.append(shown_line(saved_text, small=True))
    elif not just_told:
        lines.append(shown_line(_("Nothing saved yet for this activity."), small=True))
    return lines


def problem_card(state: StudentState, problem, code: str, token: str) -> tuple[str, str]:
    """One problem of an assignment: its question, the answer box, what was checked and saved, and the worked
    solution after the reveal; returns what to announce (said, refused), empty when nothing was just checked."""
    activity = state.activity
    attempt = state.attempts.get(problem.number)
    said = refused = ""
    _ = language.texts()
    say = language.say
    with st.container(border=True):
        # the question and its p / q table in one markdown element (the table is built once for the class)
        st.markdown(
            f"**{say(problem.title)}: {markdown_escape(say(problem.prompt))}**\n\n"
            + pq_table(problem.p.tokens, problem.p.values, problem.q.values, (_("token"), "p", "q"),
                       language.decimal_comma(), language.right_to_left())
        )
        done = bool(attempt and attempt.correct)
        frozen = activity.locked or activity.revealed or done or not state.open
        with st.form(Keys.answer_form(activity.id, problem.number), border=False):
            if problem.is_choice:  # the branch question: the Exercises page's two choices
                saved = attempt.answer if attempt else ""
                names = {option: _(BRANCH_NAMES[option]) for option in BRANCH_OPTIONS}
                st.radio(
                    _("Your answer"), BRANCH_OPTIONS, key=Keys.answer(activity.id, problem.number), horizontal=True,
                    index=BRANCH_OPTIONS.index(saved) if saved in BRANCH_OPTIONS else None, disabled=frozen,
                    format_func=lambda option: names.get(option, str(option)),
                )  # fmt: skip
            else:
                st.text_input(
                    _("Your answer"),
                    value=attempt.answer if attempt else "",
                    key=Keys.answer(activity.id, problem.number),
                    placeholder=_("A fraction, a decimal or a word"),
                    disabled=frozen,
                )
            pressed = st.form_submit_button(
                _("Check and save"),
                disabled=frozen,
                on_click=_submit_answer,
                args=(code, token, activity.id, problem.number),
            )
        submitted_without_callback(pressed, _submit_answer, code, token, activity.id, problem.number)
        feedback = st.session_state.pop(Keys.answer_feedback(problem.number), None)
        if feedback:
            show_feedback(feedback)
            text = say(feedback.text)
            said = _("{problem}: {feedback}", problem=say(problem.title), feedback=text)
            refused = text if feedback.kind == "error" and "Not saved" in feedback.text else ""
        if attempt:
            answer = _(BRANCH_NAMES[attempt.answer]) if attempt.answer in BRANCH_NAMES else attempt.answer
            progress = _("solved") if attempt.correct else _("not solved yet")
            tries = _.ngettext("{count} try", "{count} tries", attempt.tries, count=attempt.tries)
            st.caption(markdown_escape(_(
                "Saved in the class database: {answer} · {progress} · {tries}", answer=answer, progress=progress,
                tries=tries,
            )))
        if activity.revealed:
            with st.expander(_("Worked solution (revealed by your teacher)")):
                for line in worked_solution(problem):
                    st.markdown(f"- {markdown_escape(say(line))}")
    return said, refused


def assignment_student(state: StudentState, code: str, token: str) -> tuple[str, str]:
    """Draw an assignment; returns what to announce: (said, refused), from the problem just checked."""
    said = refused = ""
    problems = state.activity.spec.problems
    solved = sum(a.correct for a in state.attempts.values())
    _ = language.texts()
    st.metric(_("Solved"), _("{count} of {total}", count=solved, total=len(problems)))
    vote_countdown(state)
    locked_note(state.activity)
    for problem in problems:
        checked, refusal = problem_card(state, problem, code, token)
        said, refused = checked or said, refusal or refused
    return said, refused


def student_said(state: StudentState) -> str:
    """What the live region says of the class's state when nothing was just done on the page."""
    _ = language.texts()
    said = _("You joined {heading} as {name}.", heading=class_heading(state), name=state.name)
    if not state.open:
        said = _("This class has ended: your answers are shown as saved.")
    activity = state.activity
    if activity is not None:
        number, title = activity.position, language.say(activity.spec.title)
        if not activity.locked:
            said = _("Activity {number} is open: {title}.", number=number, title=title)
        elif activity.timed_out:
            said = _(
                "Activity {number} is open: {title}, locked: the time for the vote is up.", number=number, title=title
            )
        else:
            said = _("Activity {number} is open: {title}, locked by your teacher.", number=number, title=title)
        if activity.round > 1 and not activity.locked:
            said = _("{said} Round {round}: vote again.", said=said, round=activity.round)
    return said


def class_heading(state: StudentState) -> str:
    """``Class K7M2QX · Period 3``: the class's code, and its name when it has one."""
    _ = language.texts()
    if state.class_name:
        return _("Class {code} · {name}", code=state.code, name=state.class_name)
    return _("Class {code}", code=state.code)
