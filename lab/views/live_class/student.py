"""The Class page's student view: a joined student's private page (``?code=C&student=ID``: a reload or a new tab
resumes it), as a state machine. Which state the page is in (waiting to be let in, removed, predicting, saved,
revealed, the class ended, the database not answering, ...) is decided in one place,
lab/views/live_class/student_phase.py, from what the server holds; each state is drawn by one function here
(``NOTICES`` for the states that show no activity, ``ACTIVITIES`` and ``LIVE`` for the activity and its live part),
and what a student does in an activity is drawn by lab/views/live_class/student_work.py.

The page is drawn in three nested parts, each rerun on its own by the teacher's actions: the whole page (the
heading), the activity part (student_activity: an activity opened, a new round, Lock) and the live part
(student_live: a reveal, the responses shown; it holds the page's live region and the follow component). Each part
reads what it needs and asks phase_of; a part that finds a phase drawn by a part around it reruns that part."""

from __future__ import annotations

import streamlit as st

from lab.classroom.actions import (
    DATABASE_DOWN,
    Outcome,
    StudentSeat,
    StudentState,
    live_key,
    newly_opened,
    outcome,
    page_layout,
    with_flags,
)
from lab.classroom.activities import PREDICT
from lab.core.formatting import markdown_escape
from lab.views.live_class import holding
from lab.views.live_class.class_memory import remember_class
from lab.views.live_class.common import (
    RETRY_EVERY_S,
    URL_PATH_PAGE,
    lost_words,
    pending_outcome,
    redraw_when_pending_ends,
    still_pending,
    wait_for_database,
)
from lab.views.live_class.database import class_activity, class_version, engine
from lab.views.live_class.follow import announce_and_follow, draw_lines, page_redraw
from lab.views.live_class.session_keys import Keys
from lab.views.live_class.student_phase import Phase, phase_of, shown_phase
from lab.views.live_class.student_work import (
    assignment_student,
    class_heading,
    closed_reason,
    live_feedback,
    predict_student,
    revealed_prediction,
    round_and_saved,
    student_said,
)
from lab.views.ui import language
from lab.views.ui.accessibility import announce, section, subsection
from lab.views.ui.page_state import drawn_outside, in_whole_page, redraw_page_if_changed, whole_page


def follow(code: str, drawn_version: int) -> None:
    """The fallback without the HTTP route (lab.views.live_class.follow): a timed fragment that reruns the whole page
    only when the teacher changed something since this page was drawn (versions only grow; the shared value may lag
    the page by up to a second)."""
    read = outcome(lambda _engine: class_version(code), None, DATABASE_DOWN, gated=False)  # it bounds its own wait
    if read.down:
        st.rerun()  # the whole page says the database is unreachable, and waits for it
    current = read.value
    if current is None or not current.open or current.version > drawn_version:
        st.rerun()


# --- the state: read, decided, remembered ----------------------------------------------------------------------


def last_state(code: str, token: str) -> StudentState | None:
    """The state this page last read for this student of this class (None for none)."""
    last = st.session_state.get(Keys.LAST_STATE)
    if last is None or last.code != code or st.session_state.get(Keys.LAST_TOKEN) != token:
        return None
    return last


def remember(state: StudentState, token: str) -> None:
    st.session_state[Keys.LAST_STATE], st.session_state[Keys.LAST_TOKEN] = state, token


def read_phase(code: str, token: str) -> tuple[Phase, StudentState | None, Outcome]:
    """The student's state read from the database and its phase (phase_of); a state read is remembered, so the
    page can be drawn as last read while the database does not answer."""
    read = StudentSeat(code, token).state(engine)
    phase, state = phase_of(read, last_state(code, token))
    if not read.down and state is not None:
        remember(state, token)
    return phase, state, read


# --- the states that show no activity: one function each ---------------------------------------------------------


def draw_waiting_room(code: str, token: str, read: Outcome) -> None:
    words = language.say(read.refusal)
    st.info(markdown_escape(words))
    announce(Keys.LIVE, words)
    st.fragment(run_every=RETRY_EVERY_S)(wait_to_be_let_in)(code, token)


def draw_refused(code: str, token: str, read: Outcome) -> None:
    """A link refused, or a student removed: the reason, and the way to join again."""
    _ = language.texts()
    words = language.say(read.refusal)
    st.error(markdown_escape(words))
    st.page_link(URL_PATH_PAGE, label=_("Join a class"))
    announce(Keys.LIVE, error=words)


def say_database_down(read: Outcome) -> str:
    """The warning while the database does not answer (what was sent may yet be saved: it does not deny it)."""
    said = language.say(lost_words(read.refusal, still_pending()))
    st.session_state[Keys.DOWN_WORDS] = said
    st.warning(markdown_escape(said))
    return said


def draw_not_answering(code: str, token: str, read: Outcome) -> None:
    """The database does not answer and this page has nothing read before: it waits for it."""
    announce(Keys.LIVE, error=st.session_state.get(Keys.DOWN_WORDS) or language.say(read.refusal))
    wait_for_database()


NOTICES = {
    Phase.WAITING_ROOM: draw_waiting_room,
    Phase.REMOVED: draw_refused,
    Phase.REFUSED: draw_refused,
    Phase.NOT_ANSWERING: draw_not_answering,
}


# --- the activity part's states: one function each ----------------------------------------------------------------


def draw_no_activity(state: StudentState, code: str, token: str) -> tuple[str, str]:
    _ = language.texts()
    if state.open:
        st.info(_("Wait for your teacher to open an activity: this page follows the class by itself."))
    return "", ""


def activity_heading(state: StudentState) -> str:
    _ = language.texts()
    return _(
        "Activity {number}: {title}",
        number=state.activity.position, title=markdown_escape(language.say(state.activity.spec.title)),
    )


def draw_prediction(state: StudentState, code: str, token: str) -> tuple[str, str]:
    """Predicting, saved or revealed: the bars and boxes (disabled once locked or ended); the live part says the
    rest (the round, what is saved, the exact answer)."""
    return predict_student(state, code, token, activity_heading(state))


def draw_assignment(state: StudentState, code: str, token: str) -> tuple[str, str]:
    """Solving, or the solutions revealed (each problem's card shows its worked solution then)."""
    subsection(activity_heading(state))
    return assignment_student(state, code, token)


ACTIVITIES = {
    Phase.NO_ACTIVITY: draw_no_activity,
    Phase.PREDICTING: draw_prediction,
    Phase.SAVED: draw_prediction,
    Phase.REVEALED: draw_prediction,
    Phase.SOLVING: draw_assignment,
    Phase.SOLUTIONS: draw_assignment,
}


# --- the live part's states: what each adds under the activity ------------------------------------------------------


def live_round_and_saved(state: StudentState, said: str, refused: str) -> tuple[str, list[dict]]:
    return said, round_and_saved(state, bool(said or refused))


def live_revealed(state: StudentState, said: str, refused: str) -> tuple[str, list[dict]]:
    return said or revealed_prediction(state), []


def live_nothing(state: StudentState, said: str, refused: str) -> tuple[str, list[dict]]:
    return said, []


LIVE = {
    Phase.NO_ACTIVITY: live_nothing,
    Phase.PREDICTING: live_round_and_saved,
    Phase.SAVED: live_round_and_saved,
    Phase.REVEALED: live_revealed,
    Phase.SOLVING: live_nothing,
    Phase.SOLUTIONS: live_nothing,
}


# --- what each part reads in its own rerun, and what it compares ---------------------------------------------------


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
    return page_layout(a.id, a.locked, a.kind, a.revealed, a.closes_at)


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


def live_state(code: str, token: str) -> StudentState | None:
    """The student's state in the live part's own run; None when the whole page has to say why not. When only the
    activity's flags moved since the state last read (a Reveal, Show responses: the class's shared version says so,
    the page's layout, the round and who was removed are the same), that state with the new flags: every page of
    the class redraws at that moment, and the shared version is one reading for the class, not one database read a
    page (docs/decisions/0002). Else read again (a new round: the student's round 1 prediction, nothing saved)."""
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
    a full run's elements. ``state``, ``said``, ``refused`` and ``focus``: the whole page's, used in its run only (a
    fragment's own rerun gets the arguments of the last whole run)."""
    if not in_whole_page():
        state = live_state(code, token)
        if state is None:
            st.rerun()
        redraw_page_if_changed(Keys.STUDENT_DRAWN, student_view(state))
        said, refused, focus = "", "", ""
        st.session_state.pop(Keys.FEEDBACK_DRAWN, None)
    else:
        live_feedback()
    said, lines = LIVE[shown_phase(state)](state, said, refused)
    # Last, so a run cut short keeps the previous (older) version on the page, which then redraws it.
    following = None
    if state.open:
        following = (state.code, state.version, state.follow_key, follow, layout_of(state), live_of(state))
    announce_and_follow(Keys.LIVE, said or student_said(state), refused, focus, following, lines, told(state))


def told(state: StudentState) -> dict:
    """What the live part tells the rest of the page (live_part_js.TELL_FUNCTION): that a prediction's vote closed at
    the reveal (its bars are not drawn again then), and what to bring into view (a new round, the reveal)."""
    activity = state.activity
    if activity is None:
        return {}
    told = {"into_view": f"{activity.id}.{activity.round}.{int(activity.revealed)}"}
    if activity.kind == PREDICT and activity.revealed:
        told["closed"] = {"key": Keys.bars(activity.id), "reason": closed_reason(activity)}
    return told


# --- the three parts ----------------------------------------------------------------------------------------------


def student_page(code: str, token: str) -> None:
    with whole_page():
        student_page_drawn(code, token)


def outside_of(state: StudentState) -> tuple:
    """What a student's page draws outside its activity part (student_activity): the heading, who joined, whether
    the class is open. When a teacher's action changes any of it (the end of the class), the whole page runs."""
    return (state.open, state.name, state.class_name, state.code)


def student_page_drawn(code: str, token: str) -> None:
    phase, state, read = read_phase(code, token)
    if phase in (Phase.OFFLINE, Phase.NOT_ANSWERING):
        say_database_down(read)
    if not phase.has_activity:
        NOTICES[phase](code, token, read)
        return
    _ = language.texts()
    heading = class_heading(state)
    # one block, so the activity part below stays at the same place in the page whatever this draws (a notice, a
    # refusal): its live region is then the same element from run to run, and a screen reader announces it
    with st.container():
        section(markdown_escape(heading))
        pending_outcome()
        st.caption(_(
            "You joined as {name}. Keep this page's link: it brings you back here with your answers.",
            name=markdown_escape(state.name),
        ))
        if state.open:
            holding.hold(state.code, token)  # until the class ends, this browser shows the class only
        else:
            holding.release()
            st.info(_("This class has ended: your answers are shown as saved; nothing can change now."))
        remember_class(state.code, token, state.open)  # a phone that opens the app's root finds its way back
    # focus to the page's heading once, right after Join (the Join button is gone: focus would fall to the body)
    focus = heading if st.session_state.pop(Keys.JOINED, False) else ""
    drawn_outside(Keys.STUDENT_OUTSIDE, outside_of(state))
    student_activity(code, token, state, phase is Phase.OFFLINE, focus)


def activity_rerun_state(code: str, token: str) -> StudentState:
    """The student's state in the activity part's own rerun: from the class's shared reading when the teacher
    opened a new activity, else read; a phase the whole page draws (refused, waiting, the database not answering)
    reruns the whole page."""
    state = opened_state(code, token)
    if state is NOT_ANSWERING:
        st.rerun()  # the whole page says so (and waits for the database)
    if state is None:
        read = StudentSeat(code, token).state(engine)
        if not phase_of(read, None)[0].has_activity:  # with no state before, down is NOT_ANSWERING
            st.rerun()  # the whole page says why (refused, waiting, the database unreachable)
        state = read.value
    return state


@st.fragment
def student_activity(code: str, token: str, state: StudentState, down: bool, focus: str) -> None:
    """The activity the teacher opened (or where it will appear), with the live part: a teacher's action that
    changes the page's layout (an activity opened, a new round, Lock) reruns this part, not the whole page
    (lab.views.live_class.follow.page_redraw is drawn in it): every page of a class redraws at that moment, and the
    heading, the navigation and the page's styles are a third of a full run's elements. When something outside it
    changed too (the end of the class), the whole page runs (redraw_page_if_changed). A Submit or a bar let go
    reruns this part too; a server that restarted under the page does not know it, and runs the whole page with
    what the browser sent instead (lab.views.patches.fragment_fallback), so the first Submit after a restart is
    saved. ``state``, ``down`` and ``focus``: the whole page's, used in its run only (a fragment's own rerun gets
    the arguments of the last whole run)."""
    if not in_whole_page():
        state = activity_rerun_state(code, token)
        remember(state, token)
        redraw_page_if_changed(Keys.STUDENT_OUTSIDE, outside_of(state))
        st.session_state[Keys.ACTIVITY_RERUN] = True  # read by prediction_panel: no second run after a Submit
        try:
            with whole_page():  # the live part inside is drawn as part of this run, not a rerun of its own
                student_activity_drawn(code, token, state, False, "")
        finally:
            st.session_state[Keys.ACTIVITY_RERUN] = False
        redraw_when_pending_ends()  # a Submit the database did not answer in time: the heading says its outcome
        return
    student_activity_drawn(code, token, state, down, focus)


def student_activity_drawn(code: str, token: str, state: StudentState, down: bool, focus: str) -> None:
    """The activity as its phase draws it (an ended class: as it was left), then the live part; while the database
    does not answer (``down``), the page as last read, and it waits for the database instead."""
    phase = shown_phase(state)
    # one block, so the live part below stays at the same place whatever the activity draws (a Saved notice): its
    # live region is then the same element from run to run, and a screen reader announces it
    with st.container():
        said, refused = ACTIVITIES[phase](state, code, token)  # what was just done on the page (Submit, Check)
        # what the live part's follower reruns this part with (lab.views.live_class.follow); in this block, so the
        # live part stays the same element whether it is drawn or lent (a prediction's bars lend their trigger)
        page_redraw(lent=state.activity is not None and state.activity.kind == PREDICT)
    if down:
        live_feedback()  # (the live part is not drawn while the database does not answer)
        if phase in (Phase.PREDICTING, Phase.SAVED, Phase.REVEALED):
            draw_lines(round_and_saved(state, bool(said or refused)))  # as last read: what was saved stays
        refused = st.session_state.get(Keys.DOWN_WORDS) or language.say(DATABASE_DOWN)
        announce(Keys.LIVE, said or student_said(state), error=refused, focus=focus)
        wait_for_database()
        return
    drawn_outside(Keys.STUDENT_DRAWN, student_view(state))
    student_live(code, token, state, said, refused, focus)
