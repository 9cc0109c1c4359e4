"""The Class page's student view: a joined student's private page (``?code=C&student=ID``: a reload or a new tab
resumes it). It follows the teacher's activity: a prediction (the bars the student draws, bound to the boxes
Submit saves) or an assignment's problems, and after the reveal the exact answer. The part a teacher's action
changes most often is a fragment (student_live) that the follow component reruns. Every read and submission goes
through lab.classroom.actions (StudentSeat)."""

from __future__ import annotations

from functools import partial

import streamlit as st

from lab.classroom.actions import (
    DATABASE_DOWN,
    ActivityView,
    Feedback,
    StudentSeat,
    StudentState,
    clock,
    live_key,
    newly_opened,
    outcome,
    page_layout,
    with_flags,
)
from lab.classroom.activities import PREDICT
from lab.core.formatting import box_text, fraction_text, markdown_escape, markdown_table, with_decimal
from lab.teaching.exercises import worked_solution
from lab.views.live_class import holding
from lab.views.live_class.common import (
    RETRY_EVERY_S,
    URL_PATH_PAGE,
    WAIT_FOR_PENDING,
    keep_pending,
    may_send,
    pending_outcome,
    redraw_when_pending_ends,
    still_pending,
    wait_for_database,
)
from lab.views.live_class.database import class_activity, class_version, engine
from lab.views.live_class.follow import announce_and_follow, draw_lines, lends_page_redraw, page_redraw, shown_line
from lab.views.live_class.once_per_server import pq_table
from lab.views.live_class.question import answer_markdown, draw_question
from lab.views.live_class.session_keys import Keys
from lab.views.ui.accessibility import announce, section, subsection
from lab.views.ui.bar_predictor import BoxesForm, bar_predictor
from lab.views.ui.charts import chart, figure, show_feedback
from lab.views.ui.page_state import drawn_outside, in_whole_page, redraw_page_if_changed, whole_page
from lab.views.ui.presentation import is_presenting


def follow(code: str, drawn_version: int) -> None:
    """The fallback without the HTTP route (lab.views.live_class.follow): a timed fragment that reruns the whole page
    only
    when the teacher changed something since this page was drawn (versions only grow; the shared value may lag
    the page by up to a second)."""
    read = outcome(lambda _engine: class_version(code), None, DATABASE_DOWN, gated=False)  # it bounds its own wait
    if read.down:
        st.rerun()  # the whole page says the database is unreachable, and waits for it
    current = read.value
    if current is None or not current.open or current.version > drawn_version:
        st.rerun()


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
        large=is_presenting(), disabled=activity.locked or not state.open, redraws_page=lends_page_redraw(),
        form=BoxesForm(fields, texts, stamp, submit),
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
            figure("prediction_vs_residual", spec.tokens, prediction, state.exact[:bars]),
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


def predict_student(state: StudentState, code: str, token: str, heading: str) -> tuple[str, str]:
    """Draw a predict activity under its ``heading`` (markdown); returns what to announce: (said, refused)."""
    activity = state.activity
    draw_question(activity.spec.question, Keys.student_question(activity.id), heading=heading)
    prediction_panel(state, code, token)
    feedback = st.session_state.pop(Keys.FEEDBACK, None)
    said = refused = ""
    if feedback:
        show_feedback(feedback)
        refused, said = (feedback.text, "") if feedback.kind == "error" else ("", feedback.text)
    if activity.locked:
        st.info("Your teacher has locked this activity: answers can no longer change.")
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
        frozen = activity.locked or done or not state.open
        with st.form(Keys.answer_form(activity.id, problem.number), border=False):
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
    for problem in problems:
        checked, refusal = problem_card(state, problem, code, token)
        said, refused = checked or said, refusal or refused
    return said, refused


def read_student_state(code: str, token: str) -> tuple[StudentState | None, bool]:
    """The student's state from the database, or, while it cannot be reached, the state last read (None when this
    session has none for this student), and whether the database is down. A refused link is drawn here."""
    read = StudentSeat(code, token).state(engine)
    if read.waiting:
        st.info(markdown_escape(read.refusal))
        announce(Keys.LIVE, read.refusal)
        st.fragment(run_every=RETRY_EVERY_S)(wait_to_be_let_in)(code, token)
        return None, False
    if read.refused is not None:
        st.error(markdown_escape(read.refusal))
        st.page_link(URL_PATH_PAGE, label="Join a class")
        announce(Keys.LIVE, error=read.refusal)
        return None, False
    if read.down:
        # the page as last read, so the boxes (and what the student typed in them) stay on screen
        state = st.session_state.get(Keys.LAST_STATE)
        said = read.refusal
        if still_pending():  # what was sent may yet be saved: the page says so below, this does not deny it
            said = said.replace(", so nothing was saved", "")
        st.session_state[Keys.DOWN_WORDS] = said
        st.warning(markdown_escape(said))
        if state is None or (state.code, st.session_state.get(Keys.LAST_TOKEN)) != (code, token):
            announce(Keys.LIVE, error=said)
            wait_for_database()
            return None, True
        return state, True
    state = read.value
    st.session_state[Keys.LAST_STATE], st.session_state[Keys.LAST_TOKEN] = state, token
    return state, False


def wait_to_be_let_in(code: str, token: str) -> None:
    """A student waiting for the teacher's approval: redraw the whole page once they are in (or refused)."""
    read = StudentSeat(code, token).state(engine)
    if read.waiting or read.down:
        return
    st.rerun()


def student_view(state: StudentState) -> tuple:
    """What a student's page draws outside its live part (student_live): when the teacher's action changes any of
    it (an activity opened, a new round, Lock, the end of the class), the activity part (or the whole page) is drawn
    again; a reveal of a prediction, or the responses shown on the projector, only redraw the live part."""
    activity = state.activity
    shown = None
    if activity is not None:
        shown = (activity.id, activity.locked, activity.kind)
        shown += (activity.revealed,) if activity.kind != PREDICT else ()  # an assignment's cards show its reveal
    # not the round nor what is saved: the live part draws those (a Submit reruns the activity part itself)
    return (state.open, state.name, state.class_name, shown)


def layout_of(state: StudentState) -> str:
    """The page's layout as the version route says it (page_layout): when the route's differs, the follow
    component reruns the activity part at once, not the live part (which would find out and rerun the page)."""
    a = state.activity
    if a is None:
        return page_layout(None, False, "", False)
    return page_layout(a.id, a.locked, a.kind, a.revealed)


def live_of(state: StudentState) -> str | None:
    """What of the class this page draws as the version route says it (live_key), with how many were removed from
    the class's shared version (kept for live_state); None while that cannot be read: then every new version reruns
    the live part."""
    read = outcome(lambda _engine: class_version(state.code), None, DATABASE_DOWN, gated=False)
    if read.down or read.value is None:
        st.session_state.pop(Keys.REMOVED_DRAWN, None)
        return None
    st.session_state[Keys.REMOVED_DRAWN] = read.value.removed
    a = state.activity
    return live_key(
        layout_of(state), a.round if a is not None else 0, bool(a is not None and a.revealed), read.value.removed
    )


def student_said(state: StudentState) -> str:
    """What the live region says of the class's state when nothing was just done on the page."""
    heading = f"Class {state.code}" + (f" · {state.class_name}" if state.class_name else "")
    said = f"You joined {heading} as {state.name}."
    if not state.open:
        said = "This class has ended: your answers are shown as saved."
    activity = state.activity
    if activity is not None:
        said = f"Activity {activity.position} is open: {activity.spec.title}" + (
            ", locked by your teacher." if activity.locked else "."
        )
        if activity.round > 1 and not activity.locked:
            said += f" Round {activity.round}: vote again."
    return said


def live_state(code: str, token: str) -> StudentState | None:
    """The student's state in the live part's own run; None when the whole page has to say why not. When only the
    activity's flags moved since the state last read (a Reveal, Show responses: the class's shared version says so,
    the page's layout, the round and who was removed are the same), that state with the new flags: every page of
    the class redraws at that moment, and the shared version is one reading for the class, not one database read a
    page (docs/performance.md). Else read again (a new round: the student's round 1 prediction, nothing saved)."""
    last = st.session_state.get(Keys.LAST_STATE)
    if last is not None and last.activity is not None and st.session_state.get(Keys.LAST_TOKEN) == token:
        read = outcome(lambda _engine: class_version(code), None, DATABASE_DOWN, gated=False)  # its own bounded wait
        if read.down:
            return None
        current = read.value
        if (
            current is not None
            and current.open
            and current.version > last.version
            and current.layout == layout_of(last)
            and current.round == last.activity.round
            and current.removed == st.session_state.get(Keys.REMOVED_DRAWN)
        ):
            state = with_flags(last, current.version, current.revealed, current.shown)
            st.session_state[Keys.LAST_STATE] = state
            return state
    return StudentSeat(code, token).state(engine).value


NOT_ANSWERING = "not answering"  # opened_state's answer when the class's reading found the database not answering


def opened_state(code: str, token: str) -> StudentState | str | None:
    """In the activity part's own run: when the teacher opened a new activity, the student's state from the class's
    shared reading (answers.newly_opened: the activity, and that this student has no answer in it), without a read
    of their own; None when it is not known from that (then the part reads it); NOT_ANSWERING when that reading
    found the database not answering (then the whole page says so, without a second wait for it)."""
    last = st.session_state.get(Keys.LAST_STATE)
    if last is None or st.session_state.get(Keys.LAST_TOKEN) != token or last.code != code:
        return None
    read = outcome(lambda _engine: class_activity(code), None, DATABASE_DOWN, gated=False)  # its own bounded wait
    if read.down:
        return NOT_ANSWERING
    return None if read.value is None else newly_opened(last, read.value)


@st.fragment
def student_live(code: str, token: str, state: StudentState, said: str, refused: str, focus: str) -> None:
    """The part of a student's page a teacher's action changes most often, with the page's live region and the
    follow component: the exact answer once revealed (or where it will appear). The follow component's trigger
    reruns only this part, from the database; when something outside it changed too, the whole page runs
    (redraw_page_if_changed). Teacher actions redraw every page of the class at once, and this part is a third of
    a full run's elements (docs/performance.md). ``state``, ``said``, ``refused`` and ``focus``: the whole page's,
    used in its run only (a fragment's own rerun gets the arguments of the last whole run)."""
    if not in_whole_page():
        state = live_state(code, token)
        if state is None:
            st.rerun()
        redraw_page_if_changed(Keys.STUDENT_DRAWN, student_view(state))
        said, refused, focus = "", "", ""
    activity = state.activity
    lines = []
    if activity is not None and activity.kind == PREDICT:
        if state.exact is None:  # after the reveal, the table says what was saved, and no Submit is taken
            lines = round_and_saved(state, bool(said or refused))
        else:
            said = said or revealed_prediction(state)
    # Last, so a run cut short keeps the previous (older) version on the page, which then redraws it.
    following = None
    if state.open:
        following = (state.code, state.version, state.follow_key, follow, layout_of(state), live_of(state))
    announce_and_follow(Keys.LIVE, said or student_said(state), refused, focus, following, lines)


def student_page(code: str, token: str) -> None:
    with whole_page():
        student_page_drawn(code, token)


def outside_of(state: StudentState) -> tuple:
    """What a student's page draws outside its activity part (student_activity): the heading, who joined, whether
    the class is open. When a teacher's action changes any of it (the end of the class), the whole page runs."""
    return (state.open, state.name, state.class_name, state.code)


def student_page_drawn(code: str, token: str) -> None:
    state, down = read_student_state(code, token)
    if state is None:
        return
    heading = f"Class {state.code}" + (f" · {state.class_name}" if state.class_name else "")
    # one block, so the activity part below stays at the same place in the page whatever this draws (a notice, a
    # refusal): its live region is then the same element from run to run, and a screen reader announces it
    with st.container():
        section(markdown_escape(heading))
        pending_outcome()
        st.caption(
            f"You joined as {markdown_escape(state.name)}. "
            "Keep this page's link: it brings you back here with your answers."
        )
        if state.open:
            holding.hold(state.code, token)  # until the class ends, this browser shows the class only
        else:
            holding.release()
        if not state.open:
            st.info("This class has ended: your answers are shown as saved; nothing can change now.")
    # focus to the page's heading once, right after Join (the Join button is gone: focus would fall to the body)
    focus = heading if st.session_state.pop(Keys.JOINED, False) else ""
    drawn_outside(Keys.STUDENT_OUTSIDE, outside_of(state))
    student_activity(code, token, state, down, focus)


@st.fragment
def student_activity(code: str, token: str, state: StudentState, down: bool, focus: str) -> None:
    """The activity the teacher opened (or where it will appear), with the live part: a teacher's action that
    changes the page's layout (an activity opened, a new round, Lock) reruns this part, not the whole page
    (lab.views.live_class.follow.page_redraw is drawn in it): every page of a class redraws at that moment, and the
    heading,
    the navigation and the page's styles are a third of a full run's elements (docs/performance.md). When
    something outside it changed too (the end of the class), the whole page runs (redraw_page_if_changed).
    A Submit or a bar let go reruns this part too; a server that restarted under the page does not know it, and
    runs the whole page with what the browser sent instead (lab.views.patches.fragment_fallback), so the first Submit
    after
    a restart is saved. ``state``, ``down`` and ``focus``: the whole page's, used in its run only (a fragment's own
    rerun gets the arguments of the last whole run)."""
    if not in_whole_page():
        state = opened_state(code, token)
        if state is NOT_ANSWERING:
            st.rerun()  # the whole page says so (and waits for the database)
        if state is None:
            read = StudentSeat(code, token).state(engine)
            if read.value is None or read.waiting or read.down:
                st.rerun()  # the whole page says why (refused, waiting, the database unreachable)
            state = read.value
        down, focus = False, ""
        st.session_state[Keys.LAST_STATE], st.session_state[Keys.LAST_TOKEN] = state, token
        redraw_page_if_changed(Keys.STUDENT_OUTSIDE, outside_of(state))
        st.session_state[Keys.ACTIVITY_RERUN] = True  # read by prediction_form: no second run after a Submit
        try:
            with whole_page():  # the live part inside is drawn as part of this run, not a rerun of its own
                student_activity_drawn(code, token, state, down, focus)
        finally:
            st.session_state[Keys.ACTIVITY_RERUN] = False
        redraw_when_pending_ends()  # a Submit the database did not answer in time: the heading says its outcome
        return
    student_activity_drawn(code, token, state, down, focus)


def student_activity_drawn(code: str, token: str, state: StudentState, down: bool, focus: str) -> None:
    activity = state.activity
    said = refused = ""  # what was just done on the page (Submit, Check); else student_said
    # one block, so the live part below stays at the same place whatever the activity draws (a Saved notice): its
    # live region is then the same element from run to run, and a screen reader announces it
    with st.container():
        if activity is None:
            if state.open:
                st.info("Wait for your teacher to open an activity: this page follows the class by itself.")
        else:
            heading = f"Activity {activity.position}: {markdown_escape(activity.spec.title)}"
            if activity.kind == PREDICT:
                said, refused = predict_student(state, code, token, heading)
            else:
                subsection(heading)
                said, refused = assignment_student(state, code, token)
        # what the live part's follower reruns this part with (lab.views.live_class.follow); in this block, so the live
        # part
        # stays the same element whether it is drawn or lent (a prediction's bars lend their trigger)
        page_redraw(lent=activity is not None and activity.kind == PREDICT)
    if down:
        if activity is not None and activity.kind == PREDICT:
            draw_lines(round_and_saved(state, bool(said or refused)))  # as last read: what was saved stays
        refused = st.session_state.get(Keys.DOWN_WORDS, DATABASE_DOWN)
        announce(Keys.LIVE, said or student_said(state), error=refused, focus=focus)
        wait_for_database()
        return
    drawn_outside(Keys.STUDENT_DRAWN, student_view(state))
    student_live(code, token, state, said, refused, focus)
