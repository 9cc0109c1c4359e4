"""The dashboard's say over who gets in (docs/security.md): lock new joins, the expected size and the students
waiting beyond it, a new join link, and removal by a rule the teacher sees before pressing. Drawn inside the
dashboard's timed fragment from the board it already read; its buttons are the Class page's teacher buttons
(``button``: lab.views.live_class.teacher_desk.teacher_button), so a refusal or an outage is said the same way."""

from __future__ import annotations

import streamlit as st

from lab.classroom.actions import BULK_RULES, JOIN_BURST_WINDOW_S, MAX_STUDENTS, Dashboard, TeacherActions, TeacherDesk
from lab.core.formatting import markdown_escape
from lab.views.live_class.session_keys import Keys
from lab.views.ui import language

WAITING_SHOWN = 50  # rows of the waiting list drawn at once
PREVIEW_NAMES = 12  # names a bulk rule's preview lists before "and N more"


def _set_expected_size(act) -> None:
    # the box is read here, in the page's callback: the action itself runs on the database's own thread
    act(TeacherActions.set_expected_size, st.session_state.get(Keys.EXPECTED_SIZE) or 0)


def _names(labels, hide: bool) -> str:
    _ = language.texts()
    if hide:
        return _.ngettext("{count} student", "{count} students", len(labels), count=len(labels))
    shown = ", ".join(labels[:PREVIEW_NAMES])
    more = len(labels) - PREVIEW_NAMES
    return markdown_escape(_("{names} and {count} more", names=shown, count=more) if more > 0 else shown)


def fast_joins_warning(board: Dashboard, button) -> None:
    """Joins arriving faster than people type (a script, or a link that went round): said above the counters, where
    the teacher looks (also while presenting: it names no one), with the lock beside it."""
    if not board.joins_too_fast or board.klass.joins_locked:
        return
    _ = language.texts()
    with st.container(border=True):
        st.warning(
            _("**{count} joins in the last {seconds} s**: faster than people type. If these are not your students, "
              "stop new joins now; students already in keep answering, and *{rule}* takes those who joined in a "
              "flood.", count=board.joins_just_now, seconds=JOIN_BURST_WINDOW_S, rule=_("Remove by a rule")),
            icon=":material/warning:",
        )
        button(st, _("Stop new joins now"), Keys.LOCK_JOINS_FAST, TeacherActions.lock_joins, True, type="primary")


def admission_panel(board: Dashboard, hide: bool, button, act) -> None:
    """Lock, expected size, New join link, and the students waiting for approval. ``act(action, *args)`` runs a
    teacher action from a callback (the Class page's _teacher_action)."""
    _ = language.texts()
    klass = board.klass
    with st.container(border=True):
        size = (
            _("expected size {count}: further joins wait for you", count=klass.expected_size)
            if klass.expected_size
            else _("no expected size: every join takes a seat")
        )
        names = _("without names (each gets a random one)") if klass.anonymous else _("with the names they type")
        if klass.joins_locked:
            said = _("**Who gets in.** New joins: locked: no one new can join; {size}; students join {names}.",
                     size=size, names=names)
        else:
            said = _("**Who gets in.** New joins: open; {size}; students join {names}.", size=size, names=names)
        st.markdown(said)
        lock, size_box, new_link = st.columns(3)
        if klass.joins_locked:
            button(lock, _("Allow new joins"), Keys.OPEN_JOINS, TeacherActions.lock_joins, False, width="stretch")
        else:
            button(
                lock,
                _("Stop new joins"),
                Keys.LOCK_JOINS,
                TeacherActions.lock_joins,
                True,
                width="stretch",
                help=_("No one new can join; students already in come back through their private links."),
            )
        with size_box.popover(_("Expected size"), width="stretch"):
            with st.form(Keys.SIZE_FORM, border=False):
                st.number_input(
                    _("Expected number of students (0: no approval)"),
                    0,
                    MAX_STUDENTS,
                    klass.expected_size or 0,
                    step=1,
                    key=Keys.EXPECTED_SIZE,
                    help=_("Once this many are in, each new join waits for you to let it in here."),
                )
                st.form_submit_button(_("Set the expected size"), on_click=_set_expected_size, args=(act,))
        with new_link.popover(_("New join link"), width="stretch"):
            st.markdown(_(
                "Replaces the join link and its QR code: the old ones stop admitting at once (a QR code that went "
                "round). Students already in keep their private links; the typed code works until you lock."
            ))
            button(st, _("Replace the join link now"), Keys.NEW_JOIN_LINK, TeacherActions.new_join_link,
                   type="primary")  # fmt: skip
        if klass.anonymous:
            button(st, _("Ask new students for names"), Keys.ANONYMOUS, TeacherActions.set_anonymous, False)
        else:
            button(
                st, _("No names for new students"), Keys.ANONYMOUS, TeacherActions.set_anonymous, True,
                help=_("Each new student gets a random name such as Otter 17; students already in keep theirs."),
            )  # fmt: skip
        waiting_list(board.waiting, hide, button)


def waiting_list(waiting, hide: bool, button) -> None:
    if not waiting:
        return
    _ = language.texts()
    count = len(waiting)
    st.markdown(_("**Asking to join ({count})**: they joined beyond the expected size.", count=count))
    button(st, _("Let all {count} in", count=count), Keys.ADMIT_ALL, TeacherActions.admit_waiting,
           [s.id for s in waiting])  # fmt: skip
    for i, student in enumerate(waiting[:WAITING_SHOWN], start=1):
        name, let_in, refuse = st.columns([4, 1, 1], vertical_alignment="center")
        name.markdown(_("Waiting student {number}", number=i) if hide else markdown_escape(student.label))
        button(let_in, _("Let in"), Keys.admit(student.id), TeacherActions.admit_waiting, [student.id])
        button(refuse, _("Refuse"), Keys.refuse(student.id), TeacherActions.remove_students, [student.id])
    if count > WAITING_SHOWN:
        st.caption(_("and {count} more (Let all in takes them too)", count=count - WAITING_SHOWN))


def remove_by_rule(board: Dashboard, desk: TeacherDesk, db, hide: bool, button) -> None:
    """Remove several students by a rule, showing whom it takes (and whom it keeps because they submitted)."""
    _ = language.texts()
    with st.popover(_("Remove by a rule")):
        rules = {rule: _(words) for rule, words in BULK_RULES.items()}
        rule = st.radio(
            _("Remove every student who"),
            tuple(BULK_RULES),
            format_func=lambda rule: rules.get(rule, str(rule)),
            key=Keys.BULK_RULE,
        )
        seconds = 60
        if rule == "joined-recently":
            seconds = int(st.number_input(_("N (seconds)"), 1, 24 * 3600, 60, step=10, key=Keys.BULK_SECONDS) or 60)
        include = st.checkbox(_("also those who submitted something"), key=Keys.BULK_INCLUDE)
        read = desk.bulk_match(db, rule, seconds, include)
        if read.refused is not None:
            st.error(markdown_escape(language.say(read.refusal)))
            return
        if read.down:
            st.caption(_("The class database cannot be reached: try again in a moment."))
            return
        match = read.value
        if match.kept:
            st.markdown(_("Kept because they submitted: {names}.", names=_names(match.kept, hide)))
        if not match.ids:
            st.markdown(_("Nobody matches this rule now."))
            return
        st.markdown(_("Removes {count}: {names}.", count=len(match.ids), names=_names(match.labels, hide)))
        remove = _("Remove these {count} now", count=len(match.ids))
        button(st, remove, Keys.REMOVE_MATCHED, TeacherActions.remove_students, list(match.ids))
