"""The Class page's teacher view: the private dashboard of ``?code=C&teacher=TOKEN``. The current activity's
buttons (or the form that opens one), the live results (a timed fragment), who gets in
(lab.views.live_class.admission_panel), the download and End class; the links (class code, projector, join link,
private teacher link) are drawn by lab.views.live_class.teacher_links. Every button runs a TeacherDesk method through
one callback (lab.views.live_class.teacher_desk.change), which keeps a refusal or an outage to say in the next run;
every read is a TeacherDesk read (lab.classroom.actions)."""

from __future__ import annotations

import streamlit as st

from lab.classroom.actions import (
    PENDING,
    TEACHER_DOWN,
    ActivityView,
    ClassRow,
    Dashboard,
    TeacherDesk,
)
from lab.classroom.actions import TeacherActions as Do
from lab.classroom.activities import PREDICT
from lab.classroom.classes import ADD_TIME_S
from lab.core.formatting import markdown_escape
from lab.views.live_class.admission_panel import admission_panel, fast_joins_warning, remove_by_rule
from lab.views.live_class.common import (
    URL_PATH_PAGE,
    database_lost,
    go_to,
    pending_outcome,
)
from lab.views.live_class.database import browser_key, client_address, engine
from lab.views.live_class.open_form import OPEN_HEADING, open_activity_form
from lab.views.live_class.plan_panel import plan_panel
from lab.views.live_class.question import draw_answer, draw_question
from lab.views.live_class.results import change_text, pattern_text, results_chart
from lab.views.live_class.session_keys import Keys
from lab.views.live_class.teacher_desk import teacher_action, teacher_button, the_desk
from lab.views.live_class.teacher_links import join_panel, private_panel, top_bar
from lab.views.live_class.teacher_memory import forget_teacher, keep_teacher
from lab.views.ui import language
from lab.views.ui.accessibility import announce, section, subsection
from lab.views.ui.countdown import countdown
from lab.views.ui.presentation import CLASS_PRESENTING_CSS, PRESENT_TEXT_PX, is_presenting

DASHBOARD_EVERY_S = 2.0
STUDENTS_PER_PAGE = 50  # rows of the dashboard's student list drawn at once


def activity_state(activity: ActivityView) -> str:
    """The current activity's state in words (its heading says it)."""
    _ = language.texts()
    parts = [_("locked: time is up") if activity.timed_out else _("locked")] if activity.locked else [_("open")]
    if activity.revealed:
        parts.append(_("answer revealed"))
    if activity.kind == PREDICT:
        parts.insert(0, _("round {round}", round=activity.round))
        if activity.shown:
            parts.append(_("responses shown"))
    return language.list_text(parts)


def activity_buttons(activity: ActivityView) -> None:
    """The current activity's buttons in one row: the controls come first, so a lecturer reaches them without
    scrolling (the question is drawn under the live results, activity_question)."""
    _ = language.texts()
    if activity.kind == PREDICT:
        show, vote, reveal, lock, next_one = st.columns(5)
        teacher_button(
            show,
            _("Show responses"),
            Keys.SHOW,
            Do.show_responses,
            idle=activity.shown or activity.revealed,  # once shown or revealed it does nothing
            help=_("Puts this round's predictions on the projector, without the exact answer."),
            width="stretch",
        )
        teacher_button(
            vote,
            _("Vote again"),
            Keys.VOTE_AGAIN,  # after the reveal or the last round the refusal is said
            Do.vote_again,
            help=_("Round 2 of the same question: students discuss, then vote again (round 1 is kept)."),
            width="stretch",
        )
    else:
        reveal, lock, next_one = st.columns(3)
    teacher_button(
        reveal, _("Reveal to class"), Keys.REVEAL, Do.reveal, idle=activity.revealed, type="primary", width="stretch"
    )
    label, key, action = (_("Unlock"), Keys.UNLOCK, Do.unlock) if activity.locked else (_("Lock"), Keys.LOCK, Do.lock)
    teacher_button(lock, label, key, action, focus="lock", width="stretch")
    teacher_button(next_one, _("Next activity"), Keys.NEXT, Do.next_activity, focus="activity", width="stretch")
    countdown_row(activity)


def countdown_focus(activity: ActivityView | None) -> str:
    """The countdown's button that takes keyboard focus after one of them was pressed (the row changes)."""
    _ = language.texts()
    if activity is None or activity.seconds_left() is not None:
        return _("Add {seconds} s", seconds=ADD_TIME_S)
    return _("Start a {seconds} s countdown", seconds=ADD_TIME_S)


def countdown_row(activity: ActivityView) -> None:
    """The vote's countdown and its buttons: the time left (ticking in the browser) with Add 30 s and Stop, or, with
    none running, a button that starts one. Nothing once the answer is revealed or the teacher locked the vote."""
    if activity.revealed or (activity.locked and not activity.timed_out):
        return
    _ = language.texts()
    left = activity.seconds_left()
    if left is None:
        start, _rest = st.columns([2, 3])
        teacher_button(
            start, countdown_focus(activity), Keys.ADD_TIME, Do.add_time, focus="countdown", width="stretch",
            help=_("The vote locks when it ends; the projector and the phones show it."),
        )  # fmt: skip
        return
    timer, more, stop = st.columns([3, 1, 1], vertical_alignment="center")
    with timer:
        countdown(left, Keys.TEACHER_COUNTDOWN)
    teacher_button(more, countdown_focus(activity), Keys.ADD_TIME, Do.add_time, focus="countdown", width="stretch")
    teacher_button(
        stop, _("Stop countdown"), Keys.STOP_COUNTDOWN, Do.stop_countdown, idle=activity.timed_out, focus="countdown",
        width="stretch", help=_("The vote stays open until you reveal the answer or lock it."),
    )  # fmt: skip


def activity_question(activity: ActivityView | None) -> None:
    """A prediction's question (p and q, the prompt), under the live results: the buttons and the response counter
    come first, on the first screen."""
    if activity is not None and activity.kind == PREDICT:
        draw_question(
            activity.spec.question, Keys.question_chart(activity.id), PRESENT_TEXT_PX if is_presenting() else None
        )


def activity_controls(board: Dashboard) -> tuple[str, str]:
    """The current activity's buttons, or the form that opens one; returns the activity's state in words and its
    heading's text (for keyboard focus after Open or Next activity)."""
    _ = language.texts()
    activity = board.activity
    if activity is None:
        open_activity_form()
        return _("No activity is open."), _(OPEN_HEADING)
    state = activity_state(activity)
    title = language.say(activity.spec.title)
    heading = _("Activity {number}: {title} ({state})", number=activity.position, title=title, state=state)
    subsection(_("Activity {number}: {title} ({state})", number=activity.position, title=markdown_escape(title),
                 state=state))
    activity_buttons(activity)
    return _("Activity {number}: {title}, {state}.", number=activity.position, title=title, state=state), heading


def student_list(board: Dashboard, hide: bool, actions: bool) -> None:
    """The students, a page of STUDENTS_PER_PAGE at a time, drawn only while the teacher has it open (a
    collapsed expander would still draw every row on every refresh)."""
    _ = language.texts()
    if not st.toggle(_("Show the student list ({count})", count=board.joined), key=Keys.SHOW_STUDENTS):
        return
    pages = max(1, -(-board.joined // STUDENTS_PER_PAGE))
    page = 1
    if pages > 1:
        page = st.number_input(_("Page (1 to {pages})", pages=pages), 1, pages, 1, step=1, key=Keys.STUDENTS_PAGE)
        page = min(max(int(page or 1), 1), pages)
    first = (page - 1) * STUDENTS_PER_PAGE
    for i, student in enumerate(board.students[first : first + STUDENTS_PER_PAGE], start=first + 1):
        name, answered, remove = st.columns([4, 2, 1], vertical_alignment="center")
        name.text(_("Student {number}", number=i) if hide else student.label)
        answered.text(_("submitted") if student.submitted else _("waiting"))
        if actions:
            teacher_button(remove, _("Remove"), Keys.remove(student.id), Do.remove_student, student.id)
    if actions and board.joined:
        remove_by_rule(board, the_desk(), engine, hide, teacher_button)
    if board.removed:
        removed = len(board.removed)
        st.markdown(_("**Removed ({count})**: their answers stay in the CSV, marked removed.", count=removed))
        for i, student in enumerate(board.removed, start=1):
            name, let_back = st.columns([6, 1], vertical_alignment="center")
            name.text(_("Removed student {number}", number=i) if hide else student.label)
            if actions:
                teacher_button(let_back, _("Let back in"), Keys.let_back(student.id), Do.allow_back, student.id)


def round_results(summary, activity, label: str, key: str, height: int) -> None:
    """One round's chart, and after the reveal its facts (how close, the wrong pattern)."""
    _ = language.texts()
    revealed = activity.revealed
    if label:
        st.markdown(_.ngettext("**{round}**: {count} prediction", "**{round}**: {count} predictions", summary.submitted,
                               round=label, count=summary.submitted))
    if summary.submitted == 0:
        st.info(_("No predictions yet: they appear here as students submit."))
        return
    results_chart(summary, revealed, key, height, PRESENT_TEXT_PX if is_presenting() else None, label)
    # after the reveal only, even on the teacher's own screen: the diagnosis names values near the answer, and
    # that screen may be projected (predict, then reveal)
    if revealed:
        st.markdown(markdown_escape(language.say(summary.close_sentence())))  # the projector: within_text
        st.markdown(pattern_text(summary))


def predict_results(board: Dashboard, presenting: bool) -> None:
    """The round's chart, or Round 1 and the current round side by side, and the answer after the reveal."""
    _ = language.texts()
    activity = board.activity
    height = 520 if presenting else 420
    revealed = int(activity.revealed)
    if board.earlier is not None:
        left, right = st.columns(2, gap="large")
        with left:
            round_results(board.earlier, activity, _("Round {round}", round=1),
                          Keys.results_chart(activity.id, "_r1", revealed), height)  # fmt: skip
        with right:
            round_results(
                board.predict,
                activity,
                _("Round {round}", round=activity.round),
                Keys.results_chart(activity.id, f"_r{activity.round}", revealed),
                height,
            )
        if activity.revealed or not presenting:
            st.markdown(change_text(board.change, activity.round))
    else:
        round_results(board.predict, activity, "", Keys.results_chart(activity.id, "", revealed), height)
    if activity.revealed:
        draw_answer(activity.spec.answer)


def assignment_results(summary, hide: bool) -> None:
    """Each student's solved problems, and the share solved per problem."""
    _ = language.texts()
    rows = [dict(r) for r in summary.rows]
    if hide:
        for i, row in enumerate(rows, start=1):
            row["student"] = _("Student {number}", number=i)
    # the columns in the page's language (the CSV download keeps its machine-readable names)
    columns = {"student": _("student"), "score": _("score")}
    rows = [
        {columns.get(k) or _("P{number} tries", number=k[1:].split()[0]): v for k, v in row.items()} for row in rows
    ]
    st.dataframe(rows, hide_index=True, width="stretch")
    shares = ", ".join(
        f"P{i} {language.number(float(s), '.0%')}" if s is not None else f"P{i} –"
        for i, s in enumerate(summary.success, start=1)
    )
    st.markdown(_("**Solved, per problem:** {shares}", shares=shares))


def live_dashboard(code: str, token: str, actions: bool = True) -> None:
    """Redrawn every DASHBOARD_EVERY_S seconds: one aggregate query per refresh."""
    _ = language.texts()
    read = TeacherDesk(code, token).dashboard(engine)
    if read.refusal:
        (st.warning if read.down else st.error)(markdown_escape(language.say(read.refusal)))
        return
    board = read.value
    if st.session_state.pop(Keys.OUTAGE_SHOWN, False) or (
        Keys.PENDING in st.session_state and st.session_state[Keys.PENDING][2].done()
    ):
        st.rerun()  # the database is back: the whole page again, without the outage banner, with the outcome
    presenting = is_presenting()
    hide = presenting or st.session_state.get(Keys.HIDE_NAMES, False)
    actions = actions and not presenting  # no Remove or Let back in on a projected screen
    fast_joins_warning(board, teacher_button)
    joined, submitted = st.columns(2)
    joined.metric(_("Joined"), board.joined)
    submitted.metric(_("Submitted"), _("{count} of {total}", count=board.submitted, total=board.joined))
    if board.activity is None:
        st.info(_("No activity is open: students see a waiting screen. Open one above."))
    elif board.predict is not None:
        predict_results(board, presenting)
    else:
        assignment_results(board.assignment, hide)
    if actions:
        admission_panel(board, hide, teacher_button, teacher_action)
    student_list(board, hide, actions)


def results_download(place, code: str, token: str, klass: ClassRow) -> None:
    """Download results (CSV) in ``place`` (the page, or a column); the CSV is made only when pressed."""
    _ = language.texts()
    place.download_button(
        _("Download results (CSV)"),
        lambda: TeacherDesk(code, token).class_results_csv(engine),
        file_name=f"residual-lab-class-{klass.code}.csv",
        mime="text/csv",
        on_click="ignore",
        key=Keys.DOWNLOAD,
    )


def next_lecture(place) -> None:
    """The next lecture's class, with this one's name, lesson plan and who-may-join settings: a new code and a new
    private teacher link (shown open once), no students."""
    _ = language.texts()
    if not place.button(
        _("Next lecture: a new class with this plan"), key=Keys.NEXT_LECTURE,
        help=_("A new class code and teacher link, the same name, lesson plan and settings (anonymous joining, "
               "expected size); no students or answers. This class stays as it is."),
    ):  # fmt: skip
        return
    new, refusal = the_desk().next_class(engine, browser_key(), client_address())
    if new is None:
        place.error(markdown_escape(language.say(refusal)))
        return
    st.session_state[Keys.NEW_CLASS] = new.code  # its teacher link is shown open, to be saved
    st.session_state[Keys.TEACHER_FOCUS] = "class"
    go_to(code=new.code, teacher=new.teacher_token)


def ended_dashboard(code: str, token: str, klass: ClassRow, class_heading: str, error: str) -> None:
    """An ended class: results only, since this link (perhaps in a shared computer's history) can no longer
    change anything."""
    _ = language.texts()
    st.info(_(
        "This class has ended: its code no longer admits students, and nothing in it can change. "
        "Its results can be downloaded until the class is deleted, 30 days after it started."
    ))
    ended_focus = class_heading if st.session_state.pop(Keys.TEACHER_FOCUS, "") else ""  # after End the class now
    announce(Keys.LIVE, _("This class has ended."), error=error, focus=ended_focus)
    live_dashboard(code, token, actions=False)
    results_download(st, code, token, klass)
    next_lecture(st)


def running_dashboard(code: str, token: str, klass: ClassRow, class_heading: str, error: str) -> None:
    """An open class: the code and projector link, the private panel, the activity's controls, the live results,
    the join link (open until an activity is opened, then folded below), the download and End class."""
    _ = language.texts()
    presenting = is_presenting()
    top_bar(klass, presenting)
    if not presenting:
        private_panel(klass, token)
    read = TeacherDesk(code, token).dashboard(engine)
    if read.down:
        database_lost(read.refusal)
        return
    if read.refused is not None:
        raise read.refused  # refused a moment after teacher_page let the same link in: a bug, not a page to draw
    board = read.value
    said, activity_heading = activity_controls(board)
    # keyboard focus, once, where the pressed button's result is: the activity's heading after Open or Next
    # activity, the Lock or Unlock button that replaced the one pressed, the class's heading after Start a class
    focus = {
        "activity": activity_heading,
        "lock": _("Unlock") if board.activity is not None and board.activity.locked else _("Lock"),
        "class": class_heading,
        "countdown": countdown_focus(board.activity),
    }.get(st.session_state.pop(Keys.TEACHER_FOCUS, ""), "")
    announce(Keys.LIVE, said, error=error, focus=focus)
    first = board.activity is None  # between activities: the room may still be joining
    if first:
        join_panel(klass, presenting, first)
    st.fragment(run_every=DASHBOARD_EVERY_S)(live_dashboard)(code, token)
    activity_question(board.activity)
    if not presenting:
        plan_panel(the_desk(), expanded=first)
    if not first:
        join_panel(klass, presenting, first)
    st.divider()
    download, again, end = st.columns(3)
    results_download(download, code, token, klass)
    next_lecture(again)
    with end.popover(_("End class")):
        st.write(_("Ending the class expires its code: students can no longer join or answer. Results stay."))
        teacher_button(st, _("End the class now"), Keys.END, Do.end_class, focus="class")


def teacher_page(code: str, token: str) -> None:
    _ = language.texts()
    read = TeacherDesk(code, token).check(engine)
    if read.refused is not None:
        st.session_state.pop(Keys.TEACHER_DESK, None)
        forget_teacher()
        words = language.say(read.refusal)
        st.error(markdown_escape(words))
        st.page_link(URL_PATH_PAGE, label=_("Start or join a class"))
        announce(Keys.LIVE, error=words)
        return
    if read.down:
        pending_outcome()
        database_lost(read.refusal)
        return
    klass = read.value
    keep_teacher(code, token)  # a reload of this tab's ?code=C opens the dashboard again
    presenting = is_presenting()
    if presenting:
        st.html(CLASS_PRESENTING_CSS)
    class_heading = klass.name or _("Class {code}", code=klass.code)
    section(markdown_escape(class_heading))
    error = st.session_state.pop(Keys.TEACHER_ERROR, None) or ""
    refusal = st.container()  # drawn on every run: a refusal shown in it moves no button below (focus stays put)
    if error:
        if error in (TEACHER_DOWN, PENDING) or "not answering" in error:  # (the English that a Said keeps)
            st.session_state[Keys.OUTAGE_SHOWN] = True  # live_dashboard redraws the page once the database is back
        error = language.say(error)
        refusal.error(markdown_escape(error))
    with refusal:
        pending_outcome()
    if klass.open:
        running_dashboard(code, token, klass, class_heading, error)
    else:
        ended_dashboard(code, token, klass, class_heading, error)
