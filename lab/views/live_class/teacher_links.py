"""The links on the teacher's dashboard: the top bar (the class code, the projector link, the names toggle), the
join link with its QR code and the address students can reach, and the private teacher link with New teacher link
(never drawn in presentation mode)."""

from __future__ import annotations

import streamlit as st

from lab.classroom.actions import ClassRow
from lab.core.errors import said
from lab.core.formatting import markdown_escape
from lab.i18n import N_
from lab.views.live_class.common import PROJECTOR_PATH, URL_PATH, page_url
from lab.views.live_class.database import engine
from lab.views.live_class.join_link import join_link, network_addresses, no_address_warning
from lab.views.live_class.once_per_server import qr_image
from lab.views.live_class.session_keys import Keys
from lab.views.live_class.teacher_desk import change, the_desk
from lab.views.ui import language

MAX_QR_LINK = 2000  # characters of a join link a QR code is made for


def _new_teacher_link() -> None:
    desk = the_desk()
    if not change(lambda on_pending: desk.new_teacher_link(engine, on_pending), said("New teacher link")):
        return
    st.session_state[Keys.LINK_REPLACED] = True
    st.session_state[Keys.NEW_CLASS] = desk.code  # the new link is shown open once, to copy
    if "teacher" in st.query_params:
        st.query_params["teacher"] = desk.token


def _save_join_address(address: str | None = None) -> None:
    typed = st.session_state.get(Keys.JOIN_ADDRESS, "") if address is None else address
    desk = the_desk()
    change(
        lambda on_pending: desk.set_join_address(engine, typed, on_pending),
        said("Address for students"),
        refusal_key=Keys.ADDRESS_ERROR,
    )


def projector_url(klass: ClassRow) -> str:
    """The projector's link: the class code and its display-only key, never the teacher token."""
    return page_url(PROJECTOR_PATH, code=klass.code, display=klass.display_key)


def top_bar(klass: ClassRow, presenting: bool) -> None:
    """The first row of the dashboard: the class code, the projector link (one click: a new tab) and the names
    toggle; the activity's controls follow at once (a lecturer reaches them without scrolling)."""
    _ = language.texts()
    code, projector, names = st.columns(3, vertical_alignment="center")
    code.metric(_("Class code"), klass.code)
    projector.link_button(
        _("Projector view"),
        projector_url(klass),
        type="primary",
        help=_("Opens the big-screen page for this class in a new tab: code, QR code, question and results, without "
               "names, links or buttons."),
    )
    if presenting:
        names.markdown(_("Names are hidden in presentation mode."))
    else:
        names.toggle(_("Hide names"), key=Keys.HIDE_NAMES, help=_("Always on in presentation mode."))


def join_panel(klass: ClassRow, presenting: bool, first: bool) -> None:
    """What the room may see: the join link and its QR code (the QR code encodes exactly the link shown), and
    where the join link's address comes from. ``first``: no activity opened yet, the panel is open; later it
    is an expander below the results."""
    _ = language.texts()
    link = join_link(klass.code, klass.join_address, klass.join_key)
    box = st.container(border=True) if first else st.expander(_("Join link, QR code and address for students"))
    with box:
        if first:
            st.markdown(_("**Join link and QR code**"))
        left, right = st.columns(2, gap="large")  # (3:2 weights would write 0.4, a value a question may ask)
        with left:
            if link.problem:
                st.error(markdown_escape(language.say(link.problem)))
            if link.url is not None:
                st.markdown(_("**Join link** (students open it, or go to the Class page and type the code):"))
                st.code(link.url, language=None, wrap_lines=True)
            else:
                no_address_warning(N_("join link"))
                st.markdown(_("Until then students can open the app and type the class code on its Class page."))
        with right:
            if link.url is not None:
                if len(link.url) <= MAX_QR_LINK:
                    st.image(
                        qr_image(link.url),
                        caption=_("QR code of the join link"),
                        alt=_("QR code that opens the join link shown beside it"),
                        width=320 if presenting else 220,
                    )
                else:  # a QR code (error correction M) holds at most 2,331 bytes
                    st.markdown(_("No QR code: the join link is longer than {most} characters.",
                                  most=language.number(MAX_QR_LINK, ",")))
        if link.source != "environment":
            join_address_panel(klass, link.url is None, link.source)


def join_address_panel(klass: ClassRow, expanded: bool, source: str) -> None:
    """The address students can reach, typed or picked from this machine's network addresses."""
    _ = language.texts()
    with st.popover(_("Address for students")) if not expanded else st.container():
        if error := st.session_state.pop(Keys.ADDRESS_ERROR, None):
            st.error(markdown_escape(language.say(error)))
        with st.form(Keys.ADDRESS_FORM, border=False, enter_to_submit=True):
            st.text_input(
                _("App address students can reach"),
                value=klass.join_address,
                key=Keys.JOIN_ADDRESS,
                placeholder=_("e.g. {example}", example="http://192.168.1.20:8501"),
                help=_("Kept with the class: the projector view uses it too. Leave empty to use this browser's "
                       "address (when it is not localhost)."),
            )
            st.form_submit_button(_("Use this address"), on_click=_save_join_address)
        addresses = network_addresses()
        if addresses and source in ("loopback", "dashboard"):
            st.markdown(_("This machine's network addresses (as the terminal's Network URL):"))
            for i, address in enumerate(addresses):
                st.button(_("Use {address}", address=address), key=Keys.use_address(i), on_click=_save_join_address,
                          args=(address,))


def _private_link_saved() -> None:
    st.session_state.pop(Keys.NEW_CLASS, None)


def private_panel(klass: ClassRow, token: str) -> None:
    """The teacher link and New teacher link: never drawn in presentation mode. Open once, right after Start a
    class (until the teacher says it is saved or opens an activity), then behind a collapsed expander: a
    lecturer mirroring the laptop must not project the token each time."""
    _ = language.texts()
    fresh = st.session_state.get(Keys.NEW_CLASS) == klass.code
    with st.container(border=True) if fresh else st.expander(_("Your private teacher link")):
        if fresh:
            st.markdown(_("**Your private teacher link** (its copy button is at its right):"))
        if st.session_state.pop(Keys.LINK_REPLACED, False):
            st.success(_("New teacher link made: copy it now. The old link no longer opens this dashboard."))
        st.warning(_(
            "This link is the only way back to this dashboard from another tab or browser: the address bar does not "
            "keep it (a reload of this tab does). Copy it now and keep it private: anyone who has it can run this "
            "class. It is hidden in presentation mode; project the Projector view instead."
        ))
        with st.container(key=Keys.TEACHER_LINK):  # its copy button always shown (presentation.ACCESSIBILITY_CSS)
            st.code(page_url(URL_PATH, code=klass.code, teacher=token), language=None, wrap_lines=True)
        saved, replace = st.columns(2)
        if fresh:
            saved.button(_("I have saved it: hide the link"), key=Keys.LINK_SAVED, on_click=_private_link_saved)
        with replace.popover(_("New teacher link")):
            st.markdown(_(
                "If this link was seen or shared, replace it: the old link stops working at once, the class, its "
                "students, answers and projector link stay."
            ))
            st.button(_("Replace my teacher link now"), key=Keys.NEW_LINK, type="primary", on_click=_new_teacher_link)
