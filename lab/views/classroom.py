"""Class: a live class. The teacher starts a class and paces it from a dashboard; students join with the
class code and their name, and their page follows the teacher's activity. A thin view: storage, checks and
every figure come from lab.classroom (answers from the core); the page reads controls and draws.

URL: ``?code=C`` (join form filled in), ``?code=C&student=ID`` (a student's private page: reload or a new
tab resumes it), ``?code=C&teacher=TOKEN`` (the teacher's private dashboard)."""

from __future__ import annotations

from datetime import datetime
from urllib.parse import urlencode, urlsplit, urlunsplit

import streamlit as st

from lab.classroom import store
from lab.classroom.activities import ASSIGNMENT, PREDICT, WORKED_EXAMPLE, scenario_choices
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
from lab.views.accessibility import announce, section, subsection, title
from lab.views.class_question import draw_answer, draw_question
from lab.views.class_results import change_text, pattern_text, results_chart
from lab.views.classroom_db import DATABASE_DOWN, browser_key, class_version, client_address, database_down, engine
from lab.views.common import chart, figure
from lab.views.follow import follow_teacher
from lab.views.join_link import join_link, network_addresses
from lab.views.once_per_server import pq_table, qr_image
from lab.views.presentation import APP_PARAMS, CLASS_PRESENTING_CSS, PRESENT_TEXT_PX, is_presenting

URL_PATH = "class"
LIVE = "cls"  # the page's live region (lab.views.accessibility.announce), the same in each of its views
JOINED_KEY = "cls_joined"  # set by Join: the student's page then moves keyboard focus to its heading
PROJECTOR_PATH = "projector"
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
    keep = {k: st.query_params[k] for k in APP_PARAMS if k in st.query_params}
    st.query_params.from_dict({**keep, **params})
    st.rerun()


def clock(ts: float | None) -> str:
    return "" if ts is None else datetime.fromtimestamp(ts).strftime("%H:%M:%S")


# --- no class yet: join or start -------------------------------------------------------------------


def _link_key(typed_code: str, link_code: str) -> str:
    """The join link's key (``join=``), for the code the link filled in only: a typed code is a typed code."""
    key = str(st.query_params.get("join", ""))[:64]
    try:
        same = store.normalize_code(typed_code) == store.normalize_code(link_code)
    except store.ClassroomError:
        return ""
    return key if same else ""


def _try_store(call, not_done: str):
    """Run one store call for the landing page: (its result, ""), or (None, the refusal shown), where a
    database outage says ``not_done`` ("you have not joined yet") instead of "nothing was saved"."""
    try:
        return call(), ""
    except store.ClassroomError as exc:
        refusal = str(exc)
    except Exception as exc:
        if not database_down(exc):
            raise
        refusal = DATABASE_DOWN.replace("nothing was saved", not_done)
    st.error(markdown_escape(refusal))
    return None, refusal


def landing(code: str) -> None:
    refusal = ""  # announced by the page's live region
    st.caption(
        "Students: type the class code your teacher shows and your name. Teachers: start a class, project its "
        "code, and watch the predictions arrive before you reveal the answer."
    )
    join, start = st.columns(2, gap="large")
    with join:
        section("Join a class")
        with st.form("cls_join_form", border=True):
            typed_code = st.text_input("Class code", value=code, placeholder="e.g. K7M2QX", key="cls_join_code")
            name = st.text_input("Your name", key="cls_join_name", help="1 to 40 characters; your teacher sees it.")
            pressed = st.form_submit_button("Join", type="primary")
        if pressed:
            joined, refusal = _try_store(
                lambda: store.join_class(
                    engine(),
                    typed_code,
                    name,
                    client=browser_key(),
                    address=client_address(),
                    link_key=_link_key(typed_code, code),
                ),
                "you have not joined yet",
            )
            if joined is not None:
                st.session_state[JOINED_KEY] = True  # the student's page moves keyboard focus to its heading
                go_to(code=joined.code, student=joined.student_token)
    with start:
        section("Start a class (teacher)")
        with st.form("cls_start_form", border=True):
            class_name = st.text_input("Class name (optional)", key="cls_start_name", placeholder="e.g. Period 3")
            started = st.form_submit_button("Start a class")
        if started:
            new, refusal = _try_store(lambda: store.create_class(engine(), class_name), "no class was started")
            if new is not None:
                st.session_state["cls_new_class"] = new.code
                st.session_state[TEACHER_FOCUS] = "class"  # the dashboard moves keyboard focus to its heading
                go_to(code=new.code, teacher=new.teacher_token)
    announce(LIVE, error=refusal)


# --- teacher ----------------------------------------------------------------------------------------

TEACHER_STATE = "cls_teacher"  # (code, token) of this tab's dashboard: the address bar may not hold the token


def teacher_token(code: str) -> str:
    """The teacher token of this tab: from the link, or kept in the session while the address bar does not show
    it. In presentation mode the token leaves the address bar (a projected address bar would show it to the
    room) and comes back when presentation mode is turned off; a reload while presenting needs the saved link."""
    linked = str(st.query_params.get("teacher", ""))[:100]
    kept = st.session_state.get(TEACHER_STATE)
    token = linked or (kept[1] if kept and kept[0] == code else "")
    if not token:
        return ""
    st.session_state[TEACHER_STATE] = (code, token)
    if is_presenting():
        if "teacher" in st.query_params:
            del st.query_params["teacher"]
    elif st.query_params.get("teacher") != token:
        st.query_params["teacher"] = token
    return token


TEACHER_FOCUS = "cls_teacher_focus"  # after a button that leaves the page: what gets keyboard focus ("activity")


def _teacher_action(action, *args, focus: str = "") -> None:
    """A button's callback: run a store action with the page's code and token; keep its refusal to show.
    ``focus``: what gets keyboard focus in the next run when the pressed button is gone or replaced
    ("activity": the current activity's heading; "lock": the Lock or Unlock button now in its place)."""
    if focus:
        st.session_state[TEACHER_FOCUS] = focus
    code, token = st.session_state.get(TEACHER_STATE, ("", ""))
    try:
        action(engine(), code, token, *args)
    except store.ClassroomError as exc:
        st.session_state["cls_teacher_error"] = str(exc)
    except Exception as exc:
        if not database_down(exc):
            raise
        st.session_state["cls_teacher_error"] = _TEACHER_DOWN


def _new_teacher_link() -> None:
    code, token = st.session_state.get(TEACHER_STATE, ("", ""))
    try:
        new = store.new_teacher_link(engine(), code, token)
    except store.ClassroomError as exc:
        st.session_state["cls_teacher_error"] = str(exc)
        return
    st.session_state[TEACHER_STATE] = (code, new)
    st.session_state["cls_link_replaced"] = True
    if "teacher" in st.query_params:
        st.query_params["teacher"] = new


def _save_join_address(address: str | None = None) -> None:
    typed = st.session_state.get("cls_join_address", "") if address is None else address
    code, token = st.session_state.get(TEACHER_STATE, ("", ""))
    try:
        store.set_join_address(engine(), code, token, typed)
    except store.ClassroomError as exc:
        st.session_state["cls_address_error"] = str(exc)


def _open_activity() -> None:
    kind = PREDICT if st.session_state.get("cls_kind") == "Predict the bars" else ASSIGNMENT
    if kind == PREDICT:
        params = {"source": st.session_state.get("cls_source", WORKED_EXAMPLE)}
    else:
        params = {
            "seed": st.session_state.get("cls_seed"),
            "level": st.session_state.get("cls_level"),
            "count": st.session_state.get("cls_count"),
        }
    _teacher_action(store.open_activity, kind, params, focus="activity")


def _source_label(source: str) -> str:
    return "Worked example: bernoulli-residual, bars r(B) and r(C)" if source == WORKED_EXAMPLE else source


def projector_url(klass: store.ClassRow) -> str:
    """The projector's link: the class code and its display-only key, never the teacher token."""
    return page_url(PROJECTOR_PATH, code=klass.code, display=klass.display_key)


def join_panel(klass: store.ClassRow, presenting: bool) -> None:
    """What the room may see: the class code, the join link and its QR code (the QR code encodes exactly the
    link shown), and where the join link's address comes from."""
    link = join_link(klass.code, klass.join_address, klass.join_key)
    left, right = st.columns(2, gap="large")  # (3:2 weights would write 0.4, a value a question may ask, into the page)
    with left:
        st.metric("Class code", klass.code)
        if link.problem:
            st.error(markdown_escape(link.problem))
        if link.url is not None:
            st.markdown("**Join link** (students open it, or go to the Class page and type the code):")
            st.code(link.url, language=None, wrap_lines=True)
        else:
            st.warning(
                "**No join link yet: this page was opened as localhost**, an address only this computer knows, so "
                "a link or QR code made from it would not open on a phone. Give the address students can reach "
                "(this machine's network address, below), or set RESIDUAL_LAB_PUBLIC_URL when starting the app. "
                "Until then students can open the app themselves and type the class code on its Class page."
            )
        st.link_button(
            "Projector view",
            projector_url(klass),
            help="Opens the big-screen page for this class in a "
            "new tab: code, QR code, question and results, without names, links or buttons.",
        )
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
        with st.expander("Address for students", expanded=link.url is None):
            if error := st.session_state.pop("cls_address_error", None):
                st.error(markdown_escape(error))
            with st.form("cls_address_form", border=False, enter_to_submit=True):
                st.text_input(
                    "App address students can reach",
                    value=klass.join_address,
                    key="cls_join_address",
                    placeholder="e.g. http://192.168.1.20:8501",
                    help="Kept with the class: the projector view uses it too. Leave empty to use this browser's "
                    "address (when it is not localhost).",
                )
                st.form_submit_button("Use this address", on_click=_save_join_address)
            addresses = network_addresses()
            if addresses and link.source in ("loopback", "dashboard"):
                st.markdown("This machine's network addresses (as the terminal's Network URL):")
                for i, address in enumerate(addresses):
                    st.button(
                        f"Use {address}", key=f"cls_use_address_{i}", on_click=_save_join_address, args=(address,)
                    )


def private_panel(klass: store.ClassRow, token: str) -> None:
    """The teacher link and New teacher link: never drawn in presentation mode."""
    with st.expander("Your private teacher link", expanded=bool(st.session_state.get("cls_new_class"))):
        if st.session_state.pop("cls_link_replaced", False):
            st.success("New teacher link made: copy it now. The old link no longer opens this dashboard.")
        st.warning(
            "This link is the only way back to this dashboard. Copy it now and keep it private: anyone who has "
            "it can run this class. It is hidden in presentation mode; project the Projector view instead."
        )
        st.code(page_url(URL_PATH, code=klass.code, teacher=token), language=None, wrap_lines=True)
        with st.popover("New teacher link"):
            st.markdown(
                "If this link was seen or shared, replace it: the old link stops working at once, the class, its "
                "students, answers and projector link stay."
            )
            st.button("Replace my teacher link now", key="cls_new_link", type="primary", on_click=_new_teacher_link)


OPEN_HEADING = "Open an activity for the class"


def activity_controls(board: store.Dashboard) -> tuple[str, str]:
    """The current activity's buttons, or the form that opens one; returns the activity's state in words and its
    heading's text (for keyboard focus after Open or Next activity)."""
    activity = board.activity
    if activity is not None:
        state = ("locked" if activity.locked else "open") + (", answer revealed" if activity.revealed else "")
        if activity.kind == PREDICT:
            state = f"round {activity.round}, " + state + (", responses shown" if activity.shown else "")
        heading = f"Activity {activity.position}: {activity.spec.title} ({state})"
        subsection(f"Activity {activity.position}: {markdown_escape(activity.spec.title)} ({state})")
        if activity.kind == PREDICT:
            draw_question(
                activity.spec.question, f"cls_question_{activity.id}", PRESENT_TEXT_PX if is_presenting() else None
            )
            b0, b1, b2, b3, b4 = st.columns(5)
            b0.button(
                "Show responses",
                key="cls_show",
                # never disabled (focus would drop to the page's body): once shown or revealed it does nothing
                on_click=None if activity.shown or activity.revealed else _teacher_action,
                args=() if activity.shown or activity.revealed else (store.show_responses,),
                help="Puts this round's predictions on the projector, without the exact answer.",
                width="stretch",
            )
            b1.button(
                "Vote again",
                key="cls_vote_again",  # never disabled: after the reveal or the last round the refusal is said
                on_click=_teacher_action,
                args=(store.vote_again,),
                help="Round 2 of the same question: students discuss, then vote again (round 1 is kept).",
                width="stretch",
            )
        else:
            b2, b3, b4 = st.columns(3)
        b2.button(
            "Reveal to class",
            key="cls_reveal",
            type="primary",
            # not disabled once revealed (focus would drop to the page's body): pressed again it does nothing
            on_click=None if activity.revealed else _teacher_action,
            args=() if activity.revealed else (store.reveal,),
            width="stretch",
        )
        if activity.locked:
            b3.button(
                "Unlock", key="cls_unlock", on_click=_teacher_action, args=(store.unlock,), kwargs={"focus": "lock"},
                width="stretch",
            )
        else:
            b3.button(
                "Lock", key="cls_lock", on_click=_teacher_action, args=(store.lock,), kwargs={"focus": "lock"},
                width="stretch",
            )
        b4.button(
            "Next activity",
            key="cls_next",
            on_click=_teacher_action,
            args=(store.next_activity,),
            kwargs={"focus": "activity"},
            width="stretch",
        )
        return f"Activity {activity.position}: {activity.spec.title}, {state}.", heading
    with st.container(border=True):
        subsection(OPEN_HEADING)
        kind = st.radio("Activity", ("Predict the bars", "Exercises assignment"), key="cls_kind", horizontal=True)
        if kind == "Predict the bars":
            st.selectbox(
                "Predict the bars of",
                [WORKED_EXAMPLE, *scenario_choices()],
                key="cls_source",
                format_func=_source_label,
            )
        else:
            c1, c2, c3 = st.columns(3)
            c1.number_input("Seed", MIN_SEED, MAX_SEED, 1, step=1, key="cls_seed", help="Any whole number")
            c2.selectbox(
                "Level", LEVELS, index=LEVELS.index(DEFAULT_LEVEL), key="cls_level", format_func=LEVEL_TITLES.get
            )
            c3.number_input("Number of problems", MIN_COUNT, MAX_COUNT, DEFAULT_COUNT, step=1, key="cls_count")
        st.button("Open for the class", key="cls_open", type="primary", on_click=_open_activity)
    return "No activity is open.", OPEN_HEADING


def _remove(student_id: int) -> None:
    _teacher_action(store.remove_student, student_id)


def _allow_back(student_id: int) -> None:
    _teacher_action(store.allow_back, student_id)


def _remove_waiting() -> None:
    _teacher_action(store.remove_not_submitted)


def student_list(board: store.Dashboard, hide: bool, actions: bool) -> None:
    """The students, a page of STUDENTS_PER_PAGE at a time, drawn only while the teacher has it open (a
    collapsed expander would still draw every row on every refresh)."""
    if not st.toggle(f"Show the student list ({board.joined})", key="cls_show_students"):
        return
    pages = max(1, -(-board.joined // STUDENTS_PER_PAGE))
    page = 1
    if pages > 1:
        page = st.number_input(f"Page (1 to {pages})", 1, pages, 1, step=1, key="cls_students_page")
        page = min(max(int(page or 1), 1), pages)
    first = (page - 1) * STUDENTS_PER_PAGE
    for i, student in enumerate(board.students[first : first + STUDENTS_PER_PAGE], start=first + 1):
        c1, c2, c3 = st.columns([4, 2, 1], vertical_alignment="center")
        c1.text(f"Student {i}" if hide else student.label)
        c2.text("submitted" if student.submitted else "waiting")
        if actions:
            c3.button("Remove", key=f"cls_remove_{student.id}", on_click=_remove, args=(student.id,))
    waiting = board.joined - board.submitted
    if actions and board.activity is not None and waiting:
        with st.popover(f"Remove everyone who has not submitted ({waiting})"):
            st.write(
                f"Removes the {waiting} students who have not answered this activity: their links stop working "
                "and their browsers cannot join again until you let them back in below."
            )
            st.button("Remove them now", key="cls_remove_waiting", on_click=_remove_waiting)
    if board.removed:
        st.markdown(f"**Removed ({len(board.removed)})**: their answers stay in the CSV, marked removed.")
        for i, student in enumerate(board.removed, start=1):
            c1, c2 = st.columns([6, 1], vertical_alignment="center")
            c1.text(f"Removed student {i}" if hide else student.label)
            if actions:
                c2.button("Let back in", key=f"cls_back_{student.id}", on_click=_allow_back, args=(student.id,))


def round_results(summary, activity, label: str, key: str, height: int, private: bool) -> None:
    """One round's chart, and after the reveal its facts (how close, the wrong pattern). ``private``: the
    teacher's own screen (not presenting)."""
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


def live_dashboard(code: str, token: str, actions: bool = True) -> None:
    """Redrawn every DASHBOARD_EVERY_S seconds: one aggregate query per refresh."""
    try:
        board = store.dashboard(engine(), code, token)
    except store.ClassroomError as exc:
        st.error(markdown_escape(exc))
        return
    except Exception as exc:
        if not database_down(exc):
            raise
        st.warning(markdown_escape(_TEACHER_DOWN))
        return
    presenting = is_presenting()
    hide = presenting or st.session_state.get("cls_hide_names", False)
    actions = actions and not presenting  # no Remove or Let back in on a projected screen
    m1, m2 = st.columns(2)
    m1.metric("Joined", board.joined)
    m2.metric("Submitted", f"{board.submitted} of {board.joined}")
    activity = board.activity
    if activity is None:
        st.info("No activity is open: students see a waiting screen. Open one above.")
    elif board.predict is not None:
        summary = board.predict
        height = 520 if presenting else 420
        if board.earlier is not None:
            left, right = st.columns(2, gap="large")
            with left:
                round_results(
                    board.earlier,
                    activity,
                    "Round 1",
                    f"cls_dist_{activity.id}_r1_{int(activity.revealed)}",
                    height,
                    not presenting,
                )
            with right:
                round_results(
                    summary,
                    activity,
                    f"Round {activity.round}",
                    f"cls_dist_{activity.id}_r{activity.round}_{int(activity.revealed)}",
                    height,
                    not presenting,
                )
            if activity.revealed or not presenting:
                st.markdown(change_text(board.change, activity.round))
        else:
            round_results(
                summary, activity, "", f"cls_dist_{activity.id}_{int(activity.revealed)}", height, not presenting
            )
        if activity.revealed:
            draw_answer(activity.spec.answer)
    else:
        summary = board.assignment
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
    student_list(board, hide, actions)


_TEACHER_DOWN = (
    "The class database cannot be reached right now: nothing you press is saved until it is back. This page "
    "tries again by itself every few seconds and carries on when the database answers."
)


def wait_for_database() -> None:
    """On a page that could not read the class database: try again every RETRY_EVERY_S and redraw the whole
    page once it answers (what the student typed stays: the page is drawn again with the same widgets)."""

    def retry() -> None:
        try:
            with engine().connect() as conn:
                conn.exec_driver_sql("SELECT 1")
        except Exception as exc:
            if not database_down(exc):
                raise
            return
        st.rerun()

    st.fragment(run_every=RETRY_EVERY_S)(retry)()


def _results_csv(code: str, token: str) -> str:
    try:
        return store.results_csv(engine(), code, token)
    except Exception as exc:
        if not database_down(exc):
            raise
        return "The class database could not be reached: download the results again in a moment.\n"


def teacher_page(code: str, token: str) -> None:
    try:
        klass = store.check_teacher(engine(), code, token)
    except store.ClassroomError as exc:
        st.session_state.pop(TEACHER_STATE, None)
        st.error(markdown_escape(exc))
        st.page_link(URL_PATH_PAGE, label="Start or join a class")
        announce(LIVE, error=str(exc))
        return
    except Exception as exc:
        if not database_down(exc):
            raise
        st.warning(markdown_escape(_TEACHER_DOWN))
        announce(LIVE, error=_TEACHER_DOWN)
        wait_for_database()
        return
    presenting = is_presenting()
    if presenting:
        st.html(CLASS_PRESENTING_CSS)
    class_heading = klass.name or f"Class {klass.code}"
    section(markdown_escape(class_heading))
    error = st.session_state.pop("cls_teacher_error", None)
    refusal = st.container()  # drawn on every run: a refusal shown in it moves no button below (focus stays put)
    if error:
        refusal.error(markdown_escape(error))
    if presenting:
        st.markdown("Names are hidden in presentation mode.")
    else:
        st.toggle("Hide names", key="cls_hide_names", help="Always on in presentation mode.")
    if not klass.open:
        # results only: this link (perhaps in a shared computer's history) can no longer change anything
        st.info(
            "This class has ended: its code no longer admits students, and nothing in it can change. "
            "Its results can be downloaded until the class is deleted, 30 days after it started."
        )
        ended_focus = class_heading if st.session_state.pop(TEACHER_FOCUS, "") else ""  # after End the class now
        announce(LIVE, "This class has ended.", error=error or "", focus=ended_focus)
        live_dashboard(code, token, actions=False)
        st.download_button(
            "Download results (CSV)",
            lambda: _results_csv(code, token),
            file_name=f"residual-lab-class-{klass.code}.csv",
            mime="text/csv",
            on_click="ignore",
            key="cls_download",
        )
        return
    join_panel(klass, presenting)
    if not presenting:
        private_panel(klass, token)
    try:
        board = store.dashboard(engine(), code, token)
    except Exception as exc:
        if not database_down(exc):
            raise
        st.warning(markdown_escape(_TEACHER_DOWN))
        announce(LIVE, error=_TEACHER_DOWN)
        wait_for_database()
        return
    said, activity_heading = activity_controls(board)
    # keyboard focus, once, where the pressed button's result is: the activity's heading after Open or Next
    # activity, the Lock or Unlock button that replaced the one pressed, the class's heading after Start a class
    focus = {
        "activity": activity_heading,
        "lock": "Unlock" if board.activity is not None and board.activity.locked else "Lock",
        "class": class_heading,
    }.get(st.session_state.pop(TEACHER_FOCUS, ""), "")
    announce(LIVE, said, error=error or "", focus=focus)
    st.fragment(run_every=DASHBOARD_EVERY_S)(live_dashboard)(code, token)
    st.divider()
    d1, d2 = st.columns(2)
    d1.download_button(
        "Download results (CSV)",
        lambda: _results_csv(code, token),
        file_name=f"residual-lab-class-{klass.code}.csv",
        mime="text/csv",
        on_click="ignore",
        key="cls_download",
    )
    if klass.open:
        with d2.popover("End class"):
            st.write("Ending the class expires its code: students can no longer join or answer. Results stay.")
            st.button(
                "End the class now",
                key="cls_end",
                on_click=_teacher_action,
                args=(store.end_class,),
                kwargs={"focus": "class"},
            )


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
    ran = st.session_state.pop("cls_submit_ran", False)
    if pressed and not ran:
        submit(*args)
        st.session_state.pop("cls_submit_ran", None)
        st.rerun()


def prediction_key(activity: store.ActivityView) -> str:
    """The widget keys' stem of a prediction form: a new round is a new form (its boxes start again)."""
    return f"cls_pred_{activity.id}" + (f"r{activity.round}" if activity.round > 1 else "")


def _submit_prediction(
    code: str, token: str, activity_id: int, fields: tuple[str, ...], stem: str, round_number: int
) -> None:
    st.session_state["cls_submit_ran"] = True
    values = [st.session_state.get(f"{stem}_{i}") for i in range(len(fields))]
    missing = [f for f, v in zip(fields, values) if v is None]
    if missing:
        st.session_state["cls_feedback"] = ("warning", f"Type a value for {', '.join(missing)} first.")
        return
    try:
        saved = store.submit_prediction(
            engine(), code, token, activity_id, [f"{v:.4f}" for v in values], round_number=round_number
        )
    except store.ClassroomError as exc:
        st.session_state["cls_feedback"] = ("error", str(exc))
    except Exception as exc:
        if not database_down(exc):
            raise
        st.session_state["cls_feedback"] = ("error", DATABASE_DOWN)
    else:
        st.session_state["cls_feedback"] = (
            "success",
            f"Saved at {clock(saved.updated_at)}. You can change it until your teacher locks the activity.",
        )


def _submit_answer(code: str, token: str, activity_id: int, number: int) -> None:
    st.session_state["cls_submit_ran"] = True
    text = st.session_state.get(f"cls_ans_{activity_id}_{number}") or ""
    try:
        check, _attempt = store.submit_answer(engine(), code, token, activity_id, number, text)
    except store.ClassroomError as exc:
        st.session_state[f"cls_fb_{number}"] = ("error", str(exc))
    except Exception as exc:
        if not database_down(exc):
            raise
        st.session_state[f"cls_fb_{number}"] = ("error", DATABASE_DOWN)
    else:
        kind = "success" if check.correct else ("error" if check.counted else "warning")
        saved = " Saved." if check.counted else " Not saved."
        st.session_state[f"cls_fb_{number}"] = (kind, check.message + saved)


def predict_student(state: store.StudentState, code: str, token: str) -> tuple[str, str]:
    """Draw a predict activity; returns what to announce: (said, refused)."""
    activity = state.activity
    spec = activity.spec
    draw_question(spec.question, f"cls_pq_{activity.id}")
    saved = state.prediction
    frozen = activity.locked or not state.open
    stem = prediction_key(activity)
    if activity.round > 1:
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
    start = saved or state.earlier
    with st.form(f"cls_pred_form_{activity.id}", border=True, enter_to_submit=False):
        cols = st.columns(len(spec.fields))
        for i, (col, field) in enumerate(zip(cols, spec.fields)):
            col.number_input(
                f"Predict {field}",
                min_value=0.0,
                max_value=1.0,
                value=float(start[i]) if start else None,
                step=float(PREDICT_STEP),
                format="%.2f",
                key=f"{stem}_{i}",
                disabled=frozen,
            )
        pressed = st.form_submit_button(
            "Submit",
            type="primary",
            disabled=frozen,
            on_click=_submit_prediction,
            args=(code, token, activity.id, spec.fields, stem, activity.round),
        )
    submitted_without_callback(pressed, _submit_prediction, code, token, activity.id, spec.fields, stem, activity.round)
    feedback = st.session_state.pop("cls_feedback", None)
    said = refused = ""
    if feedback:
        getattr(st, feedback[0])(markdown_escape(feedback[1]))
        refused, said = (feedback[1], "") if feedback[0] == "error" else ("", feedback[1])
    # what the database holds, whatever the boxes show (they may hold a value not submitted yet)
    if saved:
        # "0.60 for r(B)", not "r(B) = 0.60": before the reveal nothing on the page reads as a statement of r
        values = ", ".join(f"{float(v):.2f} for {f}" for f, v in zip(spec.fields, saved))
        st.caption(markdown_escape(f"Saved in the class database: {values} (at {clock(state.saved_at)})."))
    elif not feedback:
        st.caption("Nothing saved yet for this activity.")
    if activity.locked:
        st.info("Your teacher has locked this activity: answers can no longer change.")
    if state.exact is not None:
        st.markdown("**The exact answer** (revealed by your teacher):")
        bars = len(spec.tokens)
        if saved:
            # figures are cached and shared: predictions move in steps of 0.05, many students draw the same one
            prediction = tuple(float(v) for v in saved[:bars])
            chart(
                figure("prediction_vs_residual", spec.tokens, prediction, state.exact[:bars]),
                f"cls_truth_{activity.id}",
                "Bar chart of your prediction beside the exact answer: "
                + "; ".join(
                    f"{f}: yours {float(v):.2f}, exact {fraction_text(e)}"
                    for f, v, e in zip(spec.fields, saved, state.exact)
                ),
            )
        yours = [f"{float(v):.2f}" for v in saved] if saved else ["–"] * len(spec.fields)
        # a markdown table, not st.table: every student's page draws it at the same moment (the reveal)
        st.markdown(
            markdown_table(
                ("value", "yours", "exact"), zip(spec.fields, yours, (with_decimal(e, 3) for e in state.exact))
            )
        )
        draw_answer(spec.answer)
        said = said or "Your teacher revealed the exact answer: " + "; ".join(
            f"{f} is {with_decimal(e, 3)}, yours {v}" for f, e, v in zip(spec.fields, state.exact, yours)
        )
    elif saved:
        st.caption("The exact answer appears here when your teacher reveals it.")
    return said, refused


def assignment_student(state: store.StudentState, code: str, token: str) -> tuple[str, str]:
    """Draw an assignment; returns what to announce: (said, refused), from the problem just checked."""
    said = refused = ""
    activity = state.activity
    problems = activity.spec.problems
    solved = sum(a.correct for a in state.attempts.values())
    st.metric("Solved", f"{solved} of {len(problems)}")
    for problem in problems:
        attempt = state.attempts.get(problem.number)
        with st.container(border=True):
            # the question and its p / q table in one markdown element (the table is built once for the class)
            st.markdown(
                f"**{problem.title}: {markdown_escape(problem.prompt)}**\n\n"
                + pq_table(problem.p.tokens, problem.p.values, problem.q.values)
            )
            done = bool(attempt and attempt.correct)
            frozen = activity.locked or done or not state.open
            with st.form(f"cls_ans_form_{activity.id}_{problem.number}", border=False):
                st.text_input(
                    "Your answer",
                    value=attempt.answer if attempt else "",
                    key=f"cls_ans_{activity.id}_{problem.number}",
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
            feedback = st.session_state.pop(f"cls_fb_{problem.number}", None)
            if feedback:
                getattr(st, feedback[0])(markdown_escape(feedback[1]))
                said = f"{problem.title}: {feedback[1]}"
                refused = feedback[1] if feedback[0] == "error" and "Not saved" in feedback[1] else refused
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


def student_page(code: str, token: str) -> None:
    down = False
    try:
        state = store.student_state(engine(), code, token)
    except store.ClassroomError as exc:
        st.error(markdown_escape(exc))
        st.page_link(URL_PATH_PAGE, label="Join a class")
        announce(LIVE, error=str(exc))
        return
    except Exception as exc:
        if not database_down(exc):
            raise
        down = True
        # the page as last read, so the boxes (and what the student typed in them) stay on screen
        state = st.session_state.get("cls_last_state")
        st.warning(markdown_escape(DATABASE_DOWN))
        if state is None or (state.code, st.session_state.get("cls_last_token")) != (code, token):
            announce(LIVE, error=DATABASE_DOWN)
            wait_for_database()
            return
    else:
        st.session_state["cls_last_state"], st.session_state["cls_last_token"] = state, token
    heading = f"Class {state.code}" + (f" · {state.class_name}" if state.class_name else "")
    section(markdown_escape(heading))
    st.caption(
        f"You joined as {markdown_escape(state.name)}. "
        "Keep this page's link: it brings you back here with your answers."
    )
    activity = state.activity
    said, refused = f"You joined {heading} as {state.name}.", ""
    if not state.open:
        st.info("This class has ended: your answers are shown as saved; nothing can change now.")
        said = "This class has ended: your answers are shown as saved."
    if activity is None:
        if state.open:
            st.info("Wait for your teacher to open an activity: this page follows the class by itself.")
    else:
        subsection(f"Activity {activity.position}: {markdown_escape(activity.spec.title)}")
        said = f"Activity {activity.position} is open: {activity.spec.title}" + (
            ", locked by your teacher." if activity.locked else "."
        )
        if activity.kind == PREDICT:
            done, refused = predict_student(state, code, token)
        else:
            done, refused = assignment_student(state, code, token)
        said = done or said
    if down:
        refused = DATABASE_DOWN
    # focus to the page's heading once, right after Join (the Join button is gone: focus would fall to the body)
    announce(LIVE, said, error=refused, focus=heading if st.session_state.pop(JOINED_KEY, False) else "")
    if down:
        wait_for_database()
    elif state.open:
        # Last, so a run cut short keeps the previous (older) version on the page, which then redraws it.
        follow_teacher(state.code, state.version, state.follow_key, follow)


# --- page -------------------------------------------------------------------------------------------

URL_PATH_PAGE = "lab/views/classroom.py"

title("Class")
_code = str(st.query_params.get("code", ""))[:40]
_student = str(st.query_params.get("student", ""))[:100]
_teacher = "" if _student and "teacher" not in st.query_params else teacher_token(_code)
if _teacher:
    teacher_page(_code, _teacher)
elif _student:
    student_page(_code, _student)
else:
    landing(_code)
