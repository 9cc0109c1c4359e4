"""The lesson plan on the teacher's dashboard (lab.classroom.plans): its activities in order, each opened for the class
with one press; the activity in the form added to it; a plan file imported (checked, refused by name, nothing kept
from a refused file) and the plan downloaded as TOML to run again with the next lecture's class. Not drawn in
presentation mode (a projected screen shows no question before it is opened)."""

from __future__ import annotations

import streamlit as st

from lab.classroom.actions import TeacherActions as Do
from lab.classroom.actions import TeacherDesk
from lab.classroom.plans import Plan, PlanError, plan_toml, read_plan
from lab.core.formatting import markdown_escape
from lab.teaching.class_question import class_question
from lab.views.live_class.database import engine
from lab.views.live_class.question import draw_question
from lab.views.live_class.session_keys import Keys
from lab.views.live_class.teacher_desk import teacher_button
from lab.views.ui import language


def uploaded_plan(key: str = Keys.PLAN_FILE) -> tuple[Plan | None, str]:
    """The plan in the file uploader ``key``: (the plan, "") or (None, why not; "" with no file)."""
    file = st.session_state.get(key)
    if file is None:
        return None, ""
    try:  # (read_plan refuses a file over MAX_PLAN_BYTES by its length, before anything in it is read)
        return read_plan(file.getvalue()), ""
    except PlanError as exc:
        return None, language.say(exc)


def plan_preview() -> Plan | None:
    """Before a class: a plan file to start it with, its activities listed and each question shown as the class will
    see it (never an answer); returns the plan when the file is one, checked."""
    _ = language.texts()
    st.file_uploader(
        _("Lesson plan (optional: a TOML file from a class's dashboard)"), type=["toml"], key=Keys.START_PLAN_FILE,
        max_upload_size=1,
    )  # fmt: skip
    plan, refusal = uploaded_plan(Keys.START_PLAN_FILE)
    if refusal:
        st.error(markdown_escape(_("Not used: {problem}", problem=refusal)))
        return None
    if plan is None:
        return None
    with st.expander(markdown_escape(_.ngettext(
        "Preview the plan {title} ({count} activity)", "Preview the plan {title} ({count} activities)",
        len(plan.items), title=plan.title, count=len(plan.items),
    ))):
        for number, item in enumerate(plan.items, start=1):
            st.markdown(f"**{number}. {markdown_escape(language.say(item.label()))}**")
            source = item.args.get("source")
            if source is not None:
                draw_question(class_question(source), f"cls_plan_preview_{number}")
    return plan


def plan_lines(plan: Plan) -> str:
    return "\n".join(
        f"{i}. {markdown_escape(language.say(item.label()))}" for i, item in enumerate(plan.items, start=1)
    )


def plan_panel(desk: TeacherDesk, expanded: bool) -> None:
    """The class's plan: Open and Remove per activity, import a file, download it."""
    _ = language.texts()
    read = desk.plan(engine)
    if read.refusal:
        st.caption(markdown_escape(language.say(read.refusal)))
        return
    plan = read.value
    count = len(plan.items)
    title = (
        _.ngettext("Lesson plan: {title} ({count} activity)", "Lesson plan: {title} ({count} activities)", count,
                   title=plan.title, count=count)
        if plan.title
        else _.ngettext("Lesson plan ({count} activity)", "Lesson plan ({count} activities)", count, count=count)
    )  # fmt: skip
    with st.expander(title, expanded=expanded and bool(plan.items)):
        if not plan.items:
            st.markdown(_("No activities yet: add the one in the form above with **{add}**, or import a plan file.",
                          add=_("Add to the plan")))  # fmt: skip
        for number, item in enumerate(plan.items, start=1):
            label, open_one, remove = st.columns([6, 1, 1], vertical_alignment="center")
            label.markdown(f"{number}. {markdown_escape(language.say(item.label()))}")
            teacher_button(open_one, _("Open"), Keys.plan_open(number), Do.open_from_plan, number, focus="activity")
            teacher_button(remove, _("Remove"), Keys.plan_remove(number), Do.remove_from_plan, number)
        if plan.items:
            st.download_button(
                _("Download the plan (TOML)"), plan_toml(plan), file_name="lesson-plan.toml", mime="application/toml",
                on_click="ignore", key=Keys.PLAN_DOWNLOAD,
            )  # fmt: skip
        st.file_uploader(_("Import a plan (TOML)"), type=["toml"], key=Keys.PLAN_FILE, max_upload_size=1)
        imported, refusal = uploaded_plan()
        if refusal:
            st.error(markdown_escape(_("Not imported: {problem}", problem=refusal)))
        elif imported is not None:
            name = markdown_escape(imported.title or _("The file"))
            st.markdown(f"**{name}**:\n\n{plan_lines(imported)}")
            teacher_button(st, _("Use this plan (it replaces the list above)"), Keys.PLAN_USE, Do.set_plan, imported)
