"""Class: a live class. The teacher starts a class and paces it from a dashboard; students join with the
class code and their name, and their page follows the teacher's activity. A thin view: the buttons' state changes
are methods of lab.classroom.actions (TeacherDesk, StudentSeat), storage and every figure come from lab.classroom
(answers from the core); the page reads controls and draws. Each panel is a function, with a short main at the
bottom.

URL: ``?code=C`` (join form filled in), ``?code=C&student=ID`` (a student's private page: reload or a new
tab resumes it), ``?code=C&teacher=TOKEN`` (the teacher's private dashboard)."""

from __future__ import annotations

from urllib.parse import urlencode, urlsplit, urlunsplit

import streamlit as st

from lab.classroom import answers, classes, dashboards, export, records, refusals, roster, teacher_link, versions
from lab.classroom.actions import (
    DATABASE_DOWN,
    PENDING,
    PREDICT_LABEL,
    TEACHER_DOWN,
    Feedback,
    StudentSeat,
    TeacherDesk,
    clock,
    database_down,
    down_words,
    join_from_landing,
    start_class,
)
from lab.classroom.activities import PREDICT, WORKED_EXAMPLE, scenario_choices
from lab.classroom.db import now
from lab.classroom.gate import bounded
from lab.core.formatting import fraction_text, markdown_escape, markdown_table, with_decimal
from lab.teaching.exercises import (
    DEFAULT_COUNT,
    DEFAULT_LEVEL,
    LEVEL_TITLES,
    LEVELS,
    MAX_COUNT,
    MAX_SEED,
    MIN_COUNT,
    MIN_SEED,
    PREDICT_STEP,
    worked_solution,
)
from lab.views import class_focus
from lab.views.accessibility import announce, section, subsection, title
from lab.views.bar_predictor import bar_predictor
from lab.views.class_admission import admission_panel, remove_by_rule
from lab.views.class_keys import Keys
from lab.views.class_question import answer_markdown, draw_answer, draw_question
from lab.views.class_results import change_text, pattern_text, results_chart
from lab.views.classroom_db import browser_key, class_version, client_address, engine
from lab.views.common import chart, figure
from lab.views.follow import follow_teacher, page_redraw
from lab.views.join_link import join_link, network_addresses, no_address_warning
from lab.views.once_per_server import pq_table, qr_image
from lab.views.page_state import drawn_outside, in_whole_page, redraw_page_if_changed, sync_query_params, whole_page
from lab.views.presentation import CLASS_PRESENTING_CSS, PRESENT_TEXT_PX, is_presenting

URL_PATH = "class"
URL_PATH_PAGE = "lab/views/classroom.py"
PROJECTOR_PATH = "projector"
OPEN_HEADING = "Open an activity for the class"
DASHBOARD_EVERY_S = 2.0
RETRY_EVERY_S = 3.0  # how often a page that lost the class database tries again
STUDENTS_PER_PAGE = 50  # rows of the dashboard's student list drawn at once
MAX_QR_LINK = 2000  # characters of a join link a QR code is made for


def page_url(page: str, **params) -> str:
    """A link to a page of this app with ``params``, from the address this browser opened (a path prefix is
    kept): for the teacher's own links (the teacher link, the projector), not for students (see join_link)."""
    parts = urlsplit(st.context.url or "http://localhost:8501/")
    path = parts.path.rstrip("/")
    prefix = path.rsplit("/", 1)[0] if path.count("/") > 1 else ""
    return urlunsplit((parts.scheme, parts.netloc, f"{prefix}/{page}", urlencode(params), ""))


def go_to(**params) -> None:
    """Replace the page's URL parameters (keeping the app-wide ones) and run the page again."""
    sync_query_params(params)
    st.rerun()


def show_feedback(feedback: Feedback) -> None:
    getattr(st, feedback.kind)(markdown_escape(feedback.text))




def keep_pending(what: str):
    """An ``on_pending`` for lab.classroom.actions: keep the call in this session, so the page says once what
    became of it (pending_outcome)."""

    def keep(future) -> None:
        st.session_state[Keys.PENDING] = (what, clock(now()), future)

    return keep


def still_pending() -> bool:
    kept = st.session_state.get(Keys.PENDING)
    return kept is not None and not kept[2].done()


def pending_outcome() -> None:
    """Say, once, what became of a call the database had not answered in time: saved or refused when it
    answered (by name), or still waiting."""
    kept = st.session_state.get(Keys.PENDING)
    if kept is None:
        return
    what, sent_at, future = kept
    if not future.done():
        st.info(markdown_escape(f"{what} (sent at {sent_at}) is waiting for the class database: not saved yet."))
        return
    del st.session_state[Keys.PENDING]
    try:
        result = future.result()
    except refusals.ClassroomError as exc:
        st.error(markdown_escape(f"{what} (sent at {sent_at}) was refused when the database answered: {exc}"))
    except Exception as exc:
        if not database_down(exc):
            raise
        st.error(markdown_escape(f"{what} (sent at {sent_at}) was not saved: the database failed. Send it again."))
    else:
        extra = f" {result[0].message}" if isinstance(result, tuple) and hasattr(result[0], "message") else ""
        st.success(markdown_escape(f"{what} (sent at {sent_at}) was saved when the database answered.{extra}"))


WAIT_FOR_PENDING = "What you sent before is still waiting for the class database: nothing new was sent."


# --- no class yet: join or start -------------------------------------------------------------------


def join_form(code: str) -> str:
    """Join with a class code and a name; returns the refusal to announce."""
    section("Join a class")
    with st.form(Keys.JOIN_FORM, border=True):
        typed_code = st.text_input("Class code", value=code, placeholder="e.g. K7M2QX", key=Keys.JOIN_CODE)
        name = st.text_input("Your name", key=Keys.JOIN_NAME, help="1 to 40 characters; your teacher sees it.")
        pressed = st.form_submit_button("Join", type="primary")
    if not pressed:
        return ""
    joined, refusal = join_from_landing(
        engine(),
        typed_code,
        name,
        client=browser_key(),
        address=client_address(),
        link_code=code,
        key=str(st.query_params.get("join", ""))[:64],
    )
    if joined is None:
        st.error(markdown_escape(refusal))
        return refusal
    st.session_state[Keys.JOINED] = True  # the student's page moves keyboard focus to its heading
    go_to(code=joined.code, student=joined.student_token)
    return ""


def start_form() -> str:
    """Start a class; returns the refusal to announce."""
    section("Start a class (teacher)")
    with st.form(Keys.START_FORM, border=True):
        class_name = st.text_input("Class name (optional)", key=Keys.START_NAME, placeholder="e.g. Period 3")
        started = st.form_submit_button("Start a class")
    if not started:
        return ""
    new, refusal = start_class(engine(), class_name, client=browser_key(), address=client_address())
    if new is None:
        st.error(markdown_escape(refusal))
        return refusal
    st.session_state[Keys.NEW_CLASS] = new.code
    st.session_state[Keys.TEACHER_FOCUS] = "class"  # the dashboard moves keyboard focus to its heading
    go_to(code=new.code, teacher=new.teacher_token)
    return ""


def landing(code: str) -> None:
    st.caption(
        "Students: type the class code your teacher shows and your name. Teachers: start a class, project its "
        "code, and watch the predictions arrive before you reveal the answer."
    )
    join, start = st.columns(2, gap="large")
    with join:
        refusal = join_form(code)
    with start:
        refusal = start_form() or refusal
    announce(Keys.LIVE, error=refusal)


# --- teacher: the buttons' callbacks ----------------------------------------------------------------


def teacher_token(code: str) -> str:
    """The teacher token of this tab: from the link, or kept in the session while the address bar does not show
    it. In presentation mode the token leaves the address bar (a projected address bar would show it to the
    room) and comes back when presentation mode is turned off; a reload while presenting needs the saved link."""
    linked = str(st.query_params.get("teacher", ""))[:100]
    kept = st.session_state.get(Keys.TEACHER_DESK)
    token = linked or (kept.token if kept and kept.code == code else "")
    if not token:
        return ""
    st.session_state[Keys.TEACHER_DESK] = TeacherDesk(code, token)
    if is_presenting():
        if "teacher" in st.query_params:
            del st.query_params["teacher"]
    elif st.query_params.get("teacher") != token:
        st.query_params["teacher"] = token
    return token


def the_desk() -> TeacherDesk:
    return st.session_state.get(Keys.TEACHER_DESK) or TeacherDesk("", "")


def _teacher_action(action, *args, focus: str = "") -> None:
    """A button's callback: run a store action on this tab's class; keep its refusal to show.
    ``focus``: what gets keyboard focus in the next run when the pressed button is gone or replaced
    ("activity": the current activity's heading; "lock": the Lock or Unlock button now in its place)."""
    if focus:
        st.session_state[Keys.TEACHER_FOCUS] = focus
    if still_pending():
        st.session_state[Keys.TEACHER_ERROR] = WAIT_FOR_PENDING
        return
    label = getattr(action, "__name__", "action").strip("_").replace("_", " ").capitalize()
    if refusal := the_desk().act(engine(), action, *args, on_pending=keep_pending(f"{label}")):
        st.session_state[Keys.TEACHER_ERROR] = refusal


def teacher_button(place, label: str, key: str, action, *args, focus: str = "", idle: bool = False, **options) -> None:
    """A button in ``place`` that runs a teacher action of the class store (lab.classroom.classes, admission,
    roster) on this tab's class (``focus``: see _teacher_action). ``idle``: pressed, it does nothing (it is never
    disabled: focus would drop to the page's body)."""
    place.button(
        label,
        key=key,
        on_click=None if idle else _teacher_action,
        args=() if idle else (action, *args),
        kwargs={"focus": focus} if focus and not idle else {},
        **options,
    )


def _new_teacher_link() -> None:
    desk = the_desk()
    if refusal := desk.new_teacher_link(engine()):
        st.session_state[Keys.TEACHER_ERROR] = refusal
        return
    st.session_state[Keys.LINK_REPLACED] = True
    st.session_state[Keys.NEW_CLASS] = desk.code  # the new link is shown open once, to copy
    if "teacher" in st.query_params:
        st.query_params["teacher"] = desk.token


def _save_join_address(address: str | None = None) -> None:
    typed = st.session_state.get(Keys.JOIN_ADDRESS, "") if address is None else address
    if refusal := the_desk().set_join_address(engine(), typed):
        st.session_state[Keys.ADDRESS_ERROR] = refusal


def _open_activity() -> None:
    st.session_state[Keys.TEACHER_FOCUS] = "activity"
    st.session_state.pop(Keys.NEW_CLASS, None)  # the class is under way: the teacher link folds away
    refusal = the_desk().open_activity(
        engine(),
        st.session_state.get(Keys.KIND),
        st.session_state.get(Keys.SOURCE, WORKED_EXAMPLE),
        st.session_state.get(Keys.SEED),
        st.session_state.get(Keys.LEVEL),
        st.session_state.get(Keys.COUNT),
    )
    if refusal:
        st.session_state[Keys.TEACHER_ERROR] = refusal


def _source_label(source: str) -> str:
    return "Worked example: bernoulli-residual, bars r(B) and r(C)" if source == WORKED_EXAMPLE else source


def projector_url(klass: records.ClassRow) -> str:
    """The projector's link: the class code and its display-only key, never the teacher token."""
    return page_url(PROJECTOR_PATH, code=klass.code, display=klass.display_key)


# --- teacher: the dashboard's panels ----------------------------------------------------------------


def top_bar(klass: records.ClassRow, presenting: bool) -> None:
    """The first row of the dashboard: the class code, the projector link (one click: a new tab) and the names
    toggle; the activity's controls follow at once (a lecturer reaches them without scrolling)."""
    code, projector, names = st.columns(3, vertical_alignment="center")
    code.metric("Class code", klass.code)
    projector.link_button(
        "Projector view",
        projector_url(klass),
        type="primary",
        help="Opens the big-screen page for this class in a "
        "new tab: code, QR code, question and results, without names, links or buttons.",
    )
    if presenting:
        names.markdown("Names are hidden in presentation mode.")
    else:
        names.toggle("Hide names", key=Keys.HIDE_NAMES, help="Always on in presentation mode.")


def join_panel(klass: records.ClassRow, presenting: bool, first: bool) -> None:
    """What the room may see: the join link and its QR code (the QR code encodes exactly the link shown), and
    where the join link's address comes from. ``first``: no activity opened yet, the panel is open; later it
    is an expander below the results."""
    link = join_link(klass.code, klass.join_address, klass.join_key)
    box = st.container(border=True) if first else st.expander("Join link, QR code and address for students")
    with box:
        if first:
            st.markdown("**Join link and QR code**")
        left, right = st.columns(2, gap="large")  # (3:2 weights would write 0.4, a value a question may ask)
        with left:
            if link.problem:
                st.error(markdown_escape(link.problem))
            if link.url is not None:
                st.markdown("**Join link** (students open it, or go to the Class page and type the code):")
                st.code(link.url, language=None, wrap_lines=True)
            else:
                no_address_warning("join link")
                st.markdown("Until then students can open the app and type the class code on its Class page.")
        with right:
            if link.url is not None:
                if len(link.url) <= MAX_QR_LINK:
                    st.image(
                        qr_image(link.url),
                        caption="QR code of the join link",
                        alt="QR code that opens the join link shown beside it",
                        width=320 if presenting else 220,
                    )
                else:  # a QR code (error correction M) holds at most 2,331 bytes
                    st.markdown(f"No QR code: the join link is longer than {MAX_QR_LINK:,} characters.")
        if link.source != "environment":
            join_address_panel(klass, link.url is None, link.source)


def join_address_panel(klass: records.ClassRow, expanded: bool, source: str) -> None:
    """The address students can reach, typed or picked from this machine's network addresses."""
    with st.popover("Address for students") if not expanded else st.container():
        if error := st.session_state.pop(Keys.ADDRESS_ERROR, None):
            st.error(markdown_escape(error))
        with st.form(Keys.ADDRESS_FORM, border=False, enter_to_submit=True):
            st.text_input(
                "App address students can reach",
                value=klass.join_address,
                key=Keys.JOIN_ADDRESS,
                placeholder="e.g. http://192.168.1.20:8501",
                help="Kept with the class: the projector view uses it too. Leave empty to use this browser's "
                "address (when it is not localhost).",
            )
            st.form_submit_button("Use this address", on_click=_save_join_address)
        addresses = network_addresses()
        if addresses and source in ("loopback", "dashboard"):
            st.markdown("This machine's network addresses (as the terminal's Network URL):")
            for i, address in enumerate(addresses):
                st.button(f"Use {address}", key=Keys.use_address(i), on_click=_save_join_address, args=(address,))


def _private_link_saved() -> None:
    st.session_state.pop(Keys.NEW_CLASS, None)


def private_panel(klass: records.ClassRow, token: str) -> None:
    """The teacher link and New teacher link: never drawn in presentation mode. Open once, right after Start a
    class (until the teacher says it is saved or opens an activity), then behind a collapsed expander: a
    lecturer mirroring the laptop must not project the token each time."""
    fresh = st.session_state.get(Keys.NEW_CLASS) == klass.code
    with st.container(border=True) if fresh else st.expander("Your private teacher link"):
        if fresh:
            st.markdown("**Your private teacher link** (its copy button is at its right):")
        if st.session_state.pop(Keys.LINK_REPLACED, False):
            st.success("New teacher link made: copy it now. The old link no longer opens this dashboard.")
        st.warning(
            "This link is the only way back to this dashboard. Copy it now and keep it private: anyone who has "
            "it can run this class. It is hidden in presentation mode; project the Projector view instead."
        )
        with st.container(key=Keys.TEACHER_LINK):  # its copy button always shown (CLASS_DASHBOARD_CSS)
            st.code(page_url(URL_PATH, code=klass.code, teacher=token), language=None, wrap_lines=True)
        saved, replace = st.columns(2)
        if fresh:
            saved.button("I have saved it: hide the link", key=Keys.LINK_SAVED, on_click=_private_link_saved)
        with replace.popover("New teacher link"):
            st.markdown(
                "If this link was seen or shared, replace it: the old link stops working at once, the class, its "
                "students, answers and projector link stay."
            )
            st.button("Replace my teacher link now", key=Keys.NEW_LINK, type="primary", on_click=_new_teacher_link)


def activity_state(activity: records.ActivityView) -> str:
    """The current activity's state in words (its heading says it)."""
    state = ("locked" if activity.locked else "open") + (", answer revealed" if activity.revealed else "")
    if activity.kind == PREDICT:
        state = f"round {activity.round}, " + state + (", responses shown" if activity.shown else "")
    return state


def activity_buttons(activity: records.ActivityView) -> None:
    """The current activity's buttons in one row, then its question (a prediction's): the controls come first,
    so a lecturer reaches them without scrolling."""
    if activity.kind == PREDICT:
        show, vote, reveal, lock, next_one = st.columns(5)
        teacher_button(
            show,
            "Show responses",
            Keys.SHOW,
            classes.show_responses,
            idle=activity.shown or activity.revealed,  # once shown or revealed it does nothing
            help="Puts this round's predictions on the projector, without the exact answer.",
            width="stretch",
        )
        teacher_button(
            vote,
            "Vote again",
            Keys.VOTE_AGAIN,  # after the reveal or the last round the refusal is said
            classes.vote_again,
            help="Round 2 of the same question: students discuss, then vote again (round 1 is kept).",
            width="stretch",
        )
    else:
        reveal, lock, next_one = st.columns(3)
    teacher_button(
        reveal, "Reveal to class", Keys.REVEAL, classes.reveal, idle=activity.revealed, type="primary", width="stretch"
    )
    label, key, action = (
        ("Unlock", Keys.UNLOCK, classes.unlock) if activity.locked else ("Lock", Keys.LOCK, classes.lock)
    )
    teacher_button(lock, label, key, action, focus="lock", width="stretch")
    teacher_button(next_one, "Next activity", Keys.NEXT, classes.next_activity, focus="activity", width="stretch")
    if activity.kind == PREDICT:
        draw_question(
            activity.spec.question, Keys.question_chart(activity.id), PRESENT_TEXT_PX if is_presenting() else None
        )


def open_activity_form() -> None:
    """What the class does next: predict the bars of a scenario, or an exercises assignment."""
    with st.container(border=True):
        subsection(OPEN_HEADING)
        kind = st.radio("Activity", (PREDICT_LABEL, "Exercises assignment"), key=Keys.KIND, horizontal=True)
        if kind == PREDICT_LABEL:
            st.selectbox(
                "Predict the bars of",
                [WORKED_EXAMPLE, *scenario_choices()],
                key=Keys.SOURCE,
                format_func=_source_label,
            )
        else:
            seed, level, count = st.columns(3)
            seed.number_input("Seed", MIN_SEED, MAX_SEED, 1, step=1, key=Keys.SEED, help="Any whole number")
            level.selectbox(
                "Level", LEVELS, index=LEVELS.index(DEFAULT_LEVEL), key=Keys.LEVEL, format_func=LEVEL_TITLES.get
            )
            count.number_input("Number of problems", MIN_COUNT, MAX_COUNT, DEFAULT_COUNT, step=1, key=Keys.COUNT)
        st.button("Open for the class", key=Keys.OPEN, type="primary", on_click=_open_activity)


def activity_controls(board: dashboards.Dashboard) -> tuple[str, str]:
    """The current activity's buttons, or the form that opens one; returns the activity's state in words and its
    heading's text (for keyboard focus after Open or Next activity)."""
    activity = board.activity
    if activity is None:
        open_activity_form()
        return "No activity is open.", OPEN_HEADING
    state = activity_state(activity)
    heading = f"Activity {activity.position}: {activity.spec.title} ({state})"
    subsection(f"Activity {activity.position}: {markdown_escape(activity.spec.title)} ({state})")
    activity_buttons(activity)
    return f"Activity {activity.position}: {activity.spec.title}, {state}.", heading


def student_list(board: dashboards.Dashboard, hide: bool, actions: bool) -> None:
    """The students, a page of STUDENTS_PER_PAGE at a time, drawn only while the teacher has it open (a
    collapsed expander would still draw every row on every refresh)."""
    if not st.toggle(f"Show the student list ({board.joined})", key=Keys.SHOW_STUDENTS):
        return
    pages = max(1, -(-board.joined // STUDENTS_PER_PAGE))
    page = 1
    if pages > 1:
        page = st.number_input(f"Page (1 to {pages})", 1, pages, 1, step=1, key=Keys.STUDENTS_PAGE)
        page = min(max(int(page or 1), 1), pages)
    first = (page - 1) * STUDENTS_PER_PAGE
    for i, student in enumerate(board.students[first : first + STUDENTS_PER_PAGE], start=first + 1):
        name, answered, remove = st.columns([4, 2, 1], vertical_alignment="center")
        name.text(f"Student {i}" if hide else student.label)
        answered.text("submitted" if student.submitted else "waiting")
        if actions:
            teacher_button(remove, "Remove", Keys.remove(student.id), roster.remove_student, student.id)
    if actions and board.joined:
        remove_by_rule(board, board.klass.code, the_desk().token, engine(), hide, teacher_button)
    if board.removed:
        st.markdown(f"**Removed ({len(board.removed)})**: their answers stay in the CSV, marked removed.")
        for i, student in enumerate(board.removed, start=1):
            name, let_back = st.columns([6, 1], vertical_alignment="center")
            name.text(f"Removed student {i}" if hide else student.label)
            if actions:
                teacher_button(let_back, "Let back in", Keys.let_back(student.id), roster.allow_back, student.id)


def round_results(summary, activity, label: str, key: str, height: int) -> None:
    """One round's chart, and after the reveal its facts (how close, the wrong pattern)."""
    revealed = activity.revealed
    if label:
        st.markdown(f"**{label}**: {summary.submitted} predictions")
    if summary.submitted == 0:
        st.info("No predictions yet: they appear here as students submit.")
        return
    results_chart(summary, revealed, key, height, PRESENT_TEXT_PX if is_presenting() else None, label)
    # after the reveal only, even on the teacher's own screen: the diagnosis names values near the answer, and
    # that screen may be projected (predict, then reveal)
    if revealed:
        st.markdown(markdown_escape(summary.close_sentence()))  # in plain words; the projector: within_text
        st.markdown(pattern_text(summary))


def predict_results(board: dashboards.Dashboard, presenting: bool) -> None:
    """The round's chart, or Round 1 and the current round side by side, and the answer after the reveal."""
    activity = board.activity
    height = 520 if presenting else 420
    revealed = int(activity.revealed)
    if board.earlier is not None:
        left, right = st.columns(2, gap="large")
        with left:
            round_results(board.earlier, activity, "Round 1", Keys.results_chart(activity.id, "_r1", revealed), height)
        with right:
            round_results(
                board.predict,
                activity,
                f"Round {activity.round}",
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
    rows = [dict(r) for r in summary.rows]
    if hide:
        for i, row in enumerate(rows, start=1):
            row["student"] = f"Student {i}"
    st.dataframe(rows, hide_index=True, width="stretch")
    st.markdown(
        "**Solved, per problem:** "
        + ", ".join(
            f"P{i} {float(s):.0%}" if s is not None else f"P{i} –" for i, s in enumerate(summary.success, start=1)
        )
    )


def live_dashboard(code: str, token: str, actions: bool = True) -> None:
    """Redrawn every DASHBOARD_EVERY_S seconds: one aggregate query per refresh."""
    try:
        db = engine()
        board = bounded(lambda: dashboards.dashboard(db, code, token))
    except refusals.ClassroomError as exc:
        st.error(markdown_escape(exc))
        return
    except Exception as exc:
        if not database_down(exc):
            raise
        st.warning(markdown_escape(down_words(exc, TEACHER_DOWN)))
        return
    if st.session_state.pop(Keys.OUTAGE_SHOWN, False) or (
        Keys.PENDING in st.session_state and st.session_state[Keys.PENDING][2].done()
    ):
        st.rerun()  # the database is back: the whole page again, without the outage banner, with the outcome
    presenting = is_presenting()
    hide = presenting or st.session_state.get(Keys.HIDE_NAMES, False)
    actions = actions and not presenting  # no Remove or Let back in on a projected screen
    joined, submitted = st.columns(2)
    joined.metric("Joined", board.joined)
    submitted.metric("Submitted", f"{board.submitted} of {board.joined}")
    if board.activity is None:
        st.info("No activity is open: students see a waiting screen. Open one above.")
    elif board.predict is not None:
        predict_results(board, presenting)
    else:
        assignment_results(board.assignment, hide)
    if actions:
        admission_panel(board, hide, teacher_button, _teacher_action)
    student_list(board, hide, actions)


def wait_for_database() -> None:
    """On a page that could not read the class database: try again every RETRY_EVERY_S and redraw the whole
    page once it answers (what the student typed stays: the page is drawn again with the same widgets)."""

    def probe(db) -> None:
        with db.connect() as conn:
            conn.exec_driver_sql("SELECT 1")

    def retry() -> None:
        try:
            db = engine()
            bounded(lambda: probe(db))
        except Exception as exc:
            if not database_down(exc):
                raise
            return
        st.rerun()

    st.fragment(run_every=RETRY_EVERY_S)(retry)()


def database_lost(message: str) -> None:
    """The page could not read the class database: say so, announce it, and wait for it."""
    st.warning(markdown_escape(message))
    announce(Keys.LIVE, error=message)
    wait_for_database()


def _results_csv(code: str, token: str) -> str:
    try:
        db = engine()
        return bounded(lambda: export.class_results_csv(db, code, token))
    except Exception as exc:
        if not database_down(exc):
            raise
        return "The class database could not be reached: download the results again in a moment.\n"


def results_download(place, code: str, token: str, klass: records.ClassRow) -> None:
    """Download results (CSV) in ``place`` (the page, or a column); the CSV is made only when pressed."""
    place.download_button(
        "Download results (CSV)",
        lambda: _results_csv(code, token),
        file_name=f"residual-lab-class-{klass.code}.csv",
        mime="text/csv",
        on_click="ignore",
        key=Keys.DOWNLOAD,
    )


def ended_dashboard(code: str, token: str, klass: records.ClassRow, class_heading: str, error: str) -> None:
    """An ended class: results only, since this link (perhaps in a shared computer's history) can no longer
    change anything."""
    st.info(
        "This class has ended: its code no longer admits students, and nothing in it can change. "
        "Its results can be downloaded until the class is deleted, 30 days after it started."
    )
    ended_focus = class_heading if st.session_state.pop(Keys.TEACHER_FOCUS, "") else ""  # after End the class now
    announce(Keys.LIVE, "This class has ended.", error=error, focus=ended_focus)
    live_dashboard(code, token, actions=False)
    results_download(st, code, token, klass)


def running_dashboard(code: str, token: str, klass: records.ClassRow, class_heading: str, error: str) -> None:
    """An open class: the code and projector link, the private panel, the activity's controls, the live results,
    the join link (open until an activity is opened, then folded below), the download and End class."""
    presenting = is_presenting()
    top_bar(klass, presenting)
    if not presenting:
        private_panel(klass, token)
    try:
        db = engine()
        board = bounded(lambda: dashboards.dashboard(db, code, token))
    except Exception as exc:
        if not database_down(exc):
            raise
        database_lost(down_words(exc, TEACHER_DOWN))
        return
    said, activity_heading = activity_controls(board)
    # keyboard focus, once, where the pressed button's result is: the activity's heading after Open or Next
    # activity, the Lock or Unlock button that replaced the one pressed, the class's heading after Start a class
    focus = {
        "activity": activity_heading,
        "lock": "Unlock" if board.activity is not None and board.activity.locked else "Lock",
        "class": class_heading,
    }.get(st.session_state.pop(Keys.TEACHER_FOCUS, ""), "")
    announce(Keys.LIVE, said, error=error, focus=focus)
    first = board.activity is None  # between activities: the room may still be joining
    if first:
        join_panel(klass, presenting, first)
    st.fragment(run_every=DASHBOARD_EVERY_S)(live_dashboard)(code, token)
    if not first:
        join_panel(klass, presenting, first)
    st.divider()
    download, end = st.columns(2)
    results_download(download, code, token, klass)
    with end.popover("End class"):
        st.write("Ending the class expires its code: students can no longer join or answer. Results stay.")
        teacher_button(st, "End the class now", Keys.END, classes.end_class, focus="class")


def teacher_page(code: str, token: str) -> None:
    try:
        db = engine()
        klass = bounded(lambda: teacher_link.check_teacher(db, code, token))
    except refusals.ClassroomError as exc:
        st.session_state.pop(Keys.TEACHER_DESK, None)
        st.error(markdown_escape(exc))
        st.page_link(URL_PATH_PAGE, label="Start or join a class")
        announce(Keys.LIVE, error=str(exc))
        return
    except Exception as exc:
        if not database_down(exc):
            raise
        pending_outcome()
        database_lost(down_words(exc, TEACHER_DOWN))
        return
    presenting = is_presenting()
    if presenting:
        st.html(CLASS_PRESENTING_CSS)
    class_heading = klass.name or f"Class {klass.code}"
    section(markdown_escape(class_heading))
    error = st.session_state.pop(Keys.TEACHER_ERROR, None) or ""
    refusal = st.container()  # drawn on every run: a refusal shown in it moves no button below (focus stays put)
    if error:
        refusal.error(markdown_escape(error))
        if error in (TEACHER_DOWN, PENDING) or "not answering" in error:
            st.session_state[Keys.OUTAGE_SHOWN] = True  # live_dashboard redraws the page once the database is back
    with refusal:
        pending_outcome()
    if klass.open:
        running_dashboard(code, token, klass, class_heading, error)
    else:
        ended_dashboard(code, token, klass, class_heading, error)


# --- student ----------------------------------------------------------------------------------------


def follow(code: str, drawn_version: int) -> None:
    """The fallback without the HTTP route (lab.views.follow): a timed fragment that reruns the whole page only
    when the teacher changed something since this page was drawn (versions only grow; the shared value may lag
    the page by up to a second)."""
    try:
        current = class_version(code)
    except Exception as exc:
        if not database_down(exc):
            raise
        st.rerun()  # the whole page says the database is unreachable, and waits for it
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


def prediction_key(activity: records.ActivityView) -> str:
    """The widget keys' stem of a prediction form: a new round is a new form (its boxes start again)."""
    return Keys.prediction(activity.id, activity.round)


def _submit_prediction(
    code: str, token: str, activity_id: int, fields: tuple[str, ...], stem: str, round_number: int
) -> None:
    st.session_state[Keys.SUBMIT_RAN] = True
    if still_pending():
        st.session_state[Keys.FEEDBACK] = Feedback("warning", WAIT_FOR_PENDING)
        return
    values = [st.session_state.get(Keys.prediction_box(stem, i)) for i in range(len(fields))]
    st.session_state[Keys.FEEDBACK] = StudentSeat(code, token).submit_prediction(
        engine(), activity_id, fields, values, round_number, keep_pending("Your prediction")
    )


def _submit_answer(code: str, token: str, activity_id: int, number: int) -> None:
    st.session_state[Keys.SUBMIT_RAN] = True
    if still_pending():
        st.session_state[Keys.answer_feedback(number)] = Feedback("warning", WAIT_FOR_PENDING)
        return
    typed = st.session_state.get(Keys.answer(activity_id, number)) or ""
    st.session_state[Keys.answer_feedback(number)] = StudentSeat(code, token).submit_answer(
        engine(), activity_id, number, typed, keep_pending(f"Your answer to problem {number}")
    )


def vote_again_note(activity: records.ActivityView, state: answers.StudentState) -> None:
    """Round 2 or later: vote again, with the student's round 1 prediction."""
    spec = activity.spec
    st.markdown(
        f"**Round {activity.round}: vote again.** Talk it over with your neighbour, then submit your prediction "
        "again (the same or a new one)."
        + (
            " Your round 1 prediction: "
            + markdown_escape(", ".join(f"{f} = {float(v):.2f}" for f, v in zip(spec.fields, state.earlier)))
            + "."
            if state.earlier
            else ""
        )
    )


def prediction_form(state: answers.StudentState, code: str, token: str) -> None:
    """A box per predicted value and Submit, disabled once locked or ended."""
    activity = state.activity
    fields = activity.spec.fields
    frozen = activity.locked or not state.open
    stem = prediction_key(activity)
    start = state.prediction or state.earlier
    submit_args = (code, token, activity.id, fields, stem, activity.round)
    with st.form(Keys.prediction_form(activity.id), border=True, enter_to_submit=False):
        for i, (column, field) in enumerate(zip(st.columns(len(fields)), fields)):
            column.number_input(
                f"Predict {field}",
                min_value=0.0,
                max_value=1.0,
                value=float(start[i]) if start else None,
                step=float(PREDICT_STEP),
                format="%.2f",
                key=Keys.prediction_box(stem, i),
                disabled=frozen,
            )
        pressed = st.form_submit_button(
            "Submit", type="primary", disabled=frozen, on_click=_submit_prediction, args=submit_args
        )
    submitted_without_callback(pressed, _submit_prediction, *submit_args)
    if pressed:
        st.rerun()  # saved in this run: the page shows what the database now holds


def prediction_panel(state: answers.StudentState, code: str, token: str) -> None:
    """The bars the student draws above the boxes they are bound to; Submit saves the boxes. Not a fragment: a
    fragment's rerun asked for by a page whose server restarted names a fragment the new session does not know,
    and Streamlit skips it, so the first Submit after a restart would be lost (test_classroom_faults_browser)."""
    activity = state.activity
    bars = [field for field in activity.spec.fields if field != "Z"]
    boxes = [f"{prediction_key(activity)}_{i}" for i in range(len(bars))]
    start = state.prediction or state.earlier or ()
    values = [st.session_state.get(box, start[i] if i < len(start) else None) for i, box in enumerate(boxes)]
    bar_predictor(
        Keys.bars(activity.id), bars, [float(v) if v is not None else 0.0 for v in values], boxes,
        large=is_presenting(), disabled=activity.locked or not state.open,
    )
    prediction_form(state, code, token)


def revealed_prediction(state: answers.StudentState) -> str:
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
    # shows the class only (lab/views/class_focus.py)
    st.markdown(
        markdown_table(("value", "yours", "exact"), zip(spec.fields, yours, (with_decimal(e, 3) for e in state.exact)))
        + "\n\n"
        + answer_markdown(spec.answer)
    )
    return "Your teacher revealed the exact answer: " + "; ".join(
        f"{f} is {with_decimal(e, 3)}, yours {v}" for f, e, v in zip(spec.fields, state.exact, yours)
    )


def predict_student(state: answers.StudentState, code: str, token: str) -> tuple[str, str]:
    """Draw a predict activity; returns what to announce: (said, refused)."""
    activity = state.activity
    spec = activity.spec
    draw_question(spec.question, Keys.student_question(activity.id))
    saved = state.prediction
    if activity.round > 1:
        vote_again_note(activity, state)
    prediction_panel(state, code, token)
    feedback = st.session_state.pop(Keys.FEEDBACK, None)
    said = refused = ""
    if feedback:
        show_feedback(feedback)
        refused, said = (feedback.text, "") if feedback.kind == "error" else ("", feedback.text)
    # what the database holds, whatever the boxes show (they may hold a value not submitted yet)
    if saved:
        # "0.60 for r(B)", not "r(B) = 0.60": before the reveal nothing on the page reads as a statement of r
        values = ", ".join(f"{float(v):.2f} for {f}" for f, v in zip(spec.fields, saved))
        st.caption(markdown_escape(f"Saved in the class database: {values} (at {clock(state.saved_at)})."))
    elif not feedback:
        st.caption("Nothing saved yet for this activity.")
    if activity.locked:
        st.info("Your teacher has locked this activity: answers can no longer change.")
    return said, refused  # the exact answer (or where it will appear) is drawn by student_live


def problem_card(state: answers.StudentState, problem, code: str, token: str) -> tuple[str, str]:
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


def assignment_student(state: answers.StudentState, code: str, token: str) -> tuple[str, str]:
    """Draw an assignment; returns what to announce: (said, refused), from the problem just checked."""
    said = refused = ""
    problems = state.activity.spec.problems
    solved = sum(a.correct for a in state.attempts.values())
    st.metric("Solved", f"{solved} of {len(problems)}")
    for problem in problems:
        checked, refusal = problem_card(state, problem, code, token)
        said, refused = checked or said, refusal or refused
    return said, refused


def read_student_state(code: str, token: str) -> tuple[answers.StudentState | None, bool]:
    """The student's state from the database, or, while it cannot be reached, the state last read (None when this
    session has none for this student), and whether the database is down. A refused link is drawn here."""
    try:
        db = engine()
        state = bounded(lambda: answers.student_state(db, code, token))
    except refusals.Waiting as exc:
        st.info(markdown_escape(exc))
        announce(Keys.LIVE, str(exc))
        st.fragment(run_every=RETRY_EVERY_S)(wait_to_be_let_in)(code, token)
        return None, False
    except refusals.ClassroomError as exc:
        st.error(markdown_escape(exc))
        st.page_link(URL_PATH_PAGE, label="Join a class")
        announce(Keys.LIVE, error=str(exc))
        return None, False
    except Exception as exc:
        if not database_down(exc):
            raise
        # the page as last read, so the boxes (and what the student typed in them) stay on screen
        state = st.session_state.get(Keys.LAST_STATE)
        said = down_words(exc, DATABASE_DOWN)
        if still_pending():  # what was sent may yet be saved: the page says so below, this does not deny it
            said = said.replace(", so nothing was saved", "")
        st.session_state[Keys.DOWN_WORDS] = said
        st.warning(markdown_escape(said))
        if state is None or (state.code, st.session_state.get(Keys.LAST_TOKEN)) != (code, token):
            announce(Keys.LIVE, error=said)
            wait_for_database()
            return None, True
        return state, True
    st.session_state[Keys.LAST_STATE], st.session_state[Keys.LAST_TOKEN] = state, token
    return state, False


def wait_to_be_let_in(code: str, token: str) -> None:
    """A student waiting for the teacher's approval: redraw the whole page once they are in (or refused)."""
    try:
        db = engine()
        bounded(lambda: answers.student_state(db, code, token))
    except refusals.Waiting:
        return
    except Exception as exc:
        if not (isinstance(exc, refusals.ClassroomError) or database_down(exc)):
            raise
        if not isinstance(exc, refusals.ClassroomError):
            return
    st.rerun()




def student_view(state: answers.StudentState) -> tuple:
    """What a student's page draws outside its live part (student_live): when the teacher's action changes any of
    it (an activity opened, a new round, Lock, the end of the class), the whole page is drawn again; a reveal of
    a prediction, or the responses shown on the projector, only redraw the live part."""
    activity = state.activity
    shown = None
    if activity is not None:
        shown = (activity.id, activity.round, activity.locked, activity.kind)
        shown += (activity.revealed,) if activity.kind != PREDICT else ()  # an assignment's cards show its reveal
    return (state.open, state.name, state.class_name, shown, state.prediction, state.saved_at, state.earlier)


def layout_of(state: answers.StudentState) -> str:
    """The page's layout as the version route says it (versions.page_layout): when the route's differs, the follow
    component reruns the whole page at once, not the live part (which would find out and rerun the whole page)."""
    a = state.activity
    if a is None:
        return versions.page_layout(None, 0, False, "", False)
    return versions.page_layout(a.id, a.round, a.locked, a.kind, a.revealed)


def student_said(state: answers.StudentState) -> str:
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
    return said


def live_state(code: str, token: str) -> answers.StudentState | None:
    """The student's state in the live part's own run; None when the whole page has to say why not. When all that
    moved since the state last read is one Reveal or one Show responses (the class's shared version says so), that
    state with the activity's new flags: every page of the class redraws at that moment, and the shared version is
    one reading for the class, not one database read a page (docs/performance.md). Else read again."""
    last = st.session_state.get(Keys.LAST_STATE)
    if last is not None and last.activity is not None and st.session_state.get(Keys.LAST_TOKEN) == token:
        try:
            current = class_version(code)
        except Exception as exc:
            if not database_down(exc):
                raise
            return None
        flags = (last.activity.revealed, last.activity.shown)
        if (
            current is not None
            and current.open
            and current.version == last.version + 1
            and current.layout == layout_of(last)
            and sum(a != b for a, b in zip(flags, (current.revealed, current.shown))) == 1
        ):
            state = answers.with_flags(last, current.version, current.revealed, current.shown)
            st.session_state[Keys.LAST_STATE] = state
            return state
    try:
        db = engine()
        return bounded(lambda: answers.student_state(db, code, token))
    except Exception as exc:
        if isinstance(exc, refusals.ClassroomError) or database_down(exc):
            return None
        raise


@st.fragment
def student_live(code: str, token: str, state: answers.StudentState, said: str, refused: str, focus: str) -> None:
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
    if activity is not None and activity.kind == PREDICT:
        if state.exact is not None:
            said = said or revealed_prediction(state)
        elif state.prediction:
            st.caption("The exact answer appears here when your teacher reveals it.")
    announce(Keys.LIVE, said or student_said(state), error=refused, focus=focus)
    if state.open:
        # Last, so a run cut short keeps the previous (older) version on the page, which then redraws it.
        follow_teacher(state.code, state.version, state.follow_key, follow, layout_of(state))


def student_page(code: str, token: str) -> None:
    with whole_page():
        student_page_drawn(code, token)


def student_page_drawn(code: str, token: str) -> None:
    state, down = read_student_state(code, token)
    if state is None:
        return
    heading = f"Class {state.code}" + (f" · {state.class_name}" if state.class_name else "")
    # one block, so the live part below stays at the same place in the page whatever this draws (a notice, a
    # refusal): its live region is then the same element from run to run, and a screen reader announces it
    with st.container():
        section(markdown_escape(heading))
        pending_outcome()
        st.caption(
            f"You joined as {markdown_escape(state.name)}. "
            "Keep this page's link: it brings you back here with your answers."
        )
        activity = state.activity
        said = refused = ""  # what was just done on the page (Submit, Check); else student_said
        if state.open:
            class_focus.hold(state.code, token)  # until the class ends, this browser shows the class only
        else:
            class_focus.release()
        if not state.open:
            st.info("This class has ended: your answers are shown as saved; nothing can change now.")
        if activity is None:
            if state.open:
                st.info("Wait for your teacher to open an activity: this page follows the class by itself.")
        else:
            subsection(f"Activity {activity.position}: {markdown_escape(activity.spec.title)}")
            draw_activity = predict_student if activity.kind == PREDICT else assignment_student
            said, refused = draw_activity(state, code, token)
    # focus to the page's heading once, right after Join (the Join button is gone: focus would fall to the body)
    focus = heading if st.session_state.pop(Keys.JOINED, False) else ""
    if down:
        refused = st.session_state.get(Keys.DOWN_WORDS, DATABASE_DOWN)
        announce(Keys.LIVE, said or student_said(state), error=refused, focus=focus)
        wait_for_database()
        return
    drawn_outside(Keys.STUDENT_DRAWN, student_view(state))
    page_redraw()  # what the live part's follower reruns the whole page with (lab.views.follow); always: same place
    student_live(code, token, state, said, refused, focus)


# --- page -------------------------------------------------------------------------------------------


def main() -> None:
    title("Class")
    code = str(st.query_params.get("code", ""))[:40]
    student = str(st.query_params.get("student", ""))[:100]
    teacher = "" if student and "teacher" not in st.query_params else teacher_token(code)
    if not (code or student or teacher) and (held := class_focus.running_class()):
        go_to(code=held[0], student=held[1])  # the menu's Class, during the student's class: their own page
    if teacher:
        teacher_page(code, teacher)
    elif student:
        student_page(code, student)
    else:
        landing(code)


main()
