"""What a student does in a class activity, drawn on their page (lab/views/live_class/student.py decides which):
a prediction (the bars the student draws, bound to the boxes Submit saves), the exact answer beside it once
revealed, the lines saying the round and what is saved, and an assignment's problems with their answer boxes.
Every submission goes through lab.classroom.actions (StudentSeat)."""

from __future__ import annotations

from functools import partial

import streamlit as st

from lab.classroom.actions import ActivityView, Feedback, StudentSeat, StudentState, clock
from lab.core.formatting import box_text, fraction_text, markdown_escape, markdown_table, with_decimal
from lab.teaching.exercises import BRANCH_OPTIONS, worked_solution
from lab.views.live_class.common import WAIT_FOR_PENDING, keep_pending, may_send
from lab.views.live_class.database import engine
from lab.views.live_class.follow import lends_page_redraw, shown_line
from lab.views.live_class.once_per_server import pq_table
from lab.views.live_class.question import answer_markdown, draw_question
from lab.views.live_class.session_keys import Keys
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
        engine, activity_id, fields, texts, shown_round(activity_id, round_number), keep_pending("Your prediction")
    )


def _submit_answer(code: str, token: str, activity_id: int, number: int) -> None:
    st.session_state[Keys.SUBMIT_RAN] = True
    if not may_send():
        st.session_state[Keys.answer_feedback(number)] = Feedback("warning", WAIT_FOR_PENDING)
        return
    typed = st.session_state.get(Keys.answer(activity_id, number)) or ""
    st.session_state[Keys.answer_feedback(number)] = StudentSeat(code, token).submit_answer(
        engine, activity_id, number, typed, keep_pending(f"Your answer to problem {number}")
    )


def vote_again_note(activity: ActivityView, state: StudentState) -> dict:
    """Round 2 or later: vote again, with the student's round 1 prediction (a shown_line)."""
    spec = activity.spec
    return shown_line(
        "Talk it over with your neighbour, then submit your prediction again (the same or a new one)."
        + (
            " Your round 1 prediction: "
            # "0.40 for r(B)", as the saved caption: before the reveal nothing on the page reads as a statement of r
            + ", ".join(f"{float(v):.2f} for {f}" for f, v in zip(spec.fields, state.earlier))
            + "."
            if state.earlier
            else ""
        ),
        bold=f"Round {activity.round}: vote again.",
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
    texts = tuple(box_text(v) if v is not None else None for v in saved)
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
        form=BoxesForm(fields, texts, stamp, submit), sum_note=" (a distribution's bars add up to 1).",
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
    intro = "**The exact answer** (revealed by your teacher):"
    bars = len(spec.tokens)
    if saved:
        # figures are cached and shared: predictions move in steps of 0.05, many students draw the same one
        prediction = tuple(float(v) for v in saved[:bars])
        chart(
            figure("prediction_vs_residual", spec.tokens, prediction, state.exact[:bars], spec.symbol),
            Keys.truth_chart(activity.id),
            "Bar chart of your prediction beside the exact answer: "
            + "; ".join(
                f"{f}: yours {float(v):.2f}, exact {fraction_text(e)}"
                for f, v, e in zip(spec.fields, saved, state.exact)
            ),
            intro=intro,
        )
    else:
        st.markdown(intro)
    yours = [f"{float(v):.2f}" for v in saved] if saved else ["–"] * len(spec.fields)
    # one markdown (a table, not st.table), with the answer: every student's page draws it at the same moment (the
    # reveal), and each element costs the server per page. No link to the Binomial lab: during the class this browser
    # shows the class only (lab/views/holding.py)
    st.markdown(
        markdown_table(("value", "yours", "exact"), zip(spec.fields, yours, (with_decimal(e, 3) for e in state.exact)))
        + "\n\n"
        + answer_markdown(spec.answer)
    )
    return "Your teacher revealed the exact answer: " + "; ".join(
        f"{f} is {with_decimal(e, 3)}, yours {v}" for f, e, v in zip(spec.fields, state.exact, yours)
    )


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


REVEALED_CLOSED = "Your teacher has revealed the answer: this vote is closed, and answers can no longer change."


def closed_reason(activity: ActivityView) -> str:
    """Why answers to the activity can no longer change ("" while they can): the reveal, the countdown's end, Lock."""
    if activity.revealed:
        return REVEALED_CLOSED
    if activity.timed_out:
        return "Time is up: the vote is locked, and answers can no longer change."
    if activity.locked:
        return "Your teacher has locked this activity: answers can no longer change."
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
        refused, said = (feedback.text, "") if feedback.kind == "error" else ("", feedback.text)
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
    if saved:
        # "0.60 for r(B)", not "r(B) = 0.60": before the reveal nothing on the page reads as a statement of r
        values = ", ".join(f"{float(v):.2f} for {f}" for f, v in zip(spec.fields, saved))
        waiting = "" if state.exact is not None else " The exact answer appears here when your teacher reveals it."
        saved_text = f"Saved in the class database: {values} (at {clock(state.saved_at)}).{waiting}"
        lines.append(shown_line(saved_text, small=True))
    elif not just_told:
        lines.append(shown_line("Nothing saved yet for this activity.", small=True))
    return lines


def problem_card(state: StudentState, problem, code: str, token: str) -> tuple[str, str]:
    """One problem of an assignment: its question, the answer box, what was checked and saved, and the worked
    solution after the reveal; returns what to announce (said, refused), empty when nothing was just checked."""
    activity = state.activity
    attempt = state.attempts.get(problem.number)
    said = refused = ""
    with st.container(border=True):
        # the question and its p / q table in one markdown element (the table is built once for the class)
        st.markdown(
            f"**{problem.title}: {markdown_escape(problem.prompt)}**\n\n"
            + pq_table(problem.p.tokens, problem.p.values, problem.q.values)
        )
        done = bool(attempt and attempt.correct)
        frozen = activity.locked or activity.revealed or done or not state.open
        with st.form(Keys.answer_form(activity.id, problem.number), border=False):
            if problem.is_choice:  # the branch question: the Exercises page's two choices
                saved = attempt.answer if attempt else ""
                st.radio(
                    "Your answer", BRANCH_OPTIONS, key=Keys.answer(activity.id, problem.number), horizontal=True,
                    index=BRANCH_OPTIONS.index(saved) if saved in BRANCH_OPTIONS else None, disabled=frozen,
                )  # fmt: skip
            else:
                st.text_input(
                    "Your answer",
                    value=attempt.answer if attempt else "",
                    key=Keys.answer(activity.id, problem.number),
                    placeholder="A fraction, a decimal or a word",
                    disabled=frozen,
                )
            pressed = st.form_submit_button(
                "Check and save",
                disabled=frozen,
                on_click=_submit_answer,
                args=(code, token, activity.id, problem.number),
            )
        submitted_without_callback(pressed, _submit_answer, code, token, activity.id, problem.number)
        feedback = st.session_state.pop(Keys.answer_feedback(problem.number), None)
        if feedback:
            show_feedback(feedback)
            said = f"{problem.title}: {feedback.text}"
            refused = feedback.text if feedback.kind == "error" and "Not saved" in feedback.text else ""
        if attempt:
            st.caption(
                markdown_escape(
                    f"Saved in the class database: {attempt.answer} · "
                    + ("solved" if attempt.correct else "not solved yet")
                    + f" · {attempt.tries} tries"
                )
            )
        if activity.revealed:
            with st.expander("Worked solution (revealed by your teacher)"):
                for line in worked_solution(problem):
                    st.markdown(f"- {markdown_escape(line)}")
    return said, refused


def assignment_student(state: StudentState, code: str, token: str) -> tuple[str, str]:
    """Draw an assignment; returns what to announce: (said, refused), from the problem just checked."""
    said = refused = ""
    problems = state.activity.spec.problems
    solved = sum(a.correct for a in state.attempts.values())
    st.metric("Solved", f"{solved} of {len(problems)}")
    vote_countdown(state)
    locked_note(state.activity)
    for problem in problems:
        checked, refusal = problem_card(state, problem, code, token)
        said, refused = checked or said, refusal or refused
    return said, refused


