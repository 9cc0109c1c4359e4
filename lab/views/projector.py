"""Projector view: the class on the big screen, for the room. Opened from the teacher's dashboard (Projector
view); its link carries the class code and the class's display-only key, which can do nothing but show this
page: the class code in very large type, the QR code of the join link, the question, how many submitted, the
round's results (the distribution once the teacher shows the responses; the exact answer over it, the share
within 0.05 and the most common wrong pattern after the reveal). Never a name, the teacher link or a control.

It follows the teacher as a student's page does (lab.views.follow, with the display key: a full redraw when
the teacher acts) and redraws its counts and results every PROJECTOR_EVERY_S seconds (a fragment, one query).
Laid out for 1920x1080 and 1280x720 without scrolling: the results chart's height is a share of the window's.

URL: ``/projector?code=C&display=KEY``.
"""

from __future__ import annotations

import streamlit as st

from lab.classroom import store
from lab.classroom.activities import PREDICT
from lab.core.display import markdown_escape, markdown_table
from lab.views.class_results import change_text, pattern_text, predictions_alt, within_text
from lab.views.classroom_db import class_version, engine
from lab.views.classwide import qr_image
from lab.views.common import chart, figure
from lab.views.follow import follow_teacher
from lab.views.join_link import join_link
from lab.views.presentation import DISPLAY_PARAM, PROJECTOR_CSS, PROJECTOR_TEXT_PX

PROJECTOR_EVERY_S = 2.0
MAX_QR_LINK = 2000


def follow(code: str, drawn_version: int) -> None:
    """Without the HTTP route: rerun the page when the teacher acted (as the student's page does)."""
    current = class_version(code)
    if current is None or not current.open or current.version > drawn_version:
        st.rerun()


def results(shown: store.Projection, visible: bool, key: str) -> None:
    """The round's chart(s), full width: Round 1 and Round 2 side by side once a second round is open."""
    activity = shown.activity
    revealed = activity.revealed
    rounds = [(f"Round {activity.round - 1}", shown.earlier), (f"Round {activity.round}", shown.predict)]
    rounds = rounds if shown.earlier is not None else [("", shown.predict)]
    columns = st.columns(len(rounds), gap="large") if len(rounds) > 1 else [st.container()]
    for i, (column, (label, summary)) in enumerate(zip(columns, rounds)):
        with column:
            if not visible:
                continue
            if summary.submitted == 0:
                st.markdown(f"**{label or 'Predictions'}:** none yet.")
                continue
            with st.container(key=f"proj-chart-{len(rounds)}-{i}"):  # its height: PROJECTOR_CSS
                chart(
                    figure(
                        "class_predictions_figure",
                        summary.fields,
                        summary.values,
                        summary.means,
                        summary.exact if revealed else None,
                        None,
                        PROJECTOR_TEXT_PX,
                    ),
                    f"{key}_{label}",
                    predictions_alt(summary, revealed, label),
                    height="stretch",
                )
            if revealed:
                st.markdown(
                    (f"**{label}** · " if label else "") + within_text(summary) + "  \n" + pattern_text(summary)
                )
    if visible and revealed and shown.change is not None:
        st.markdown(change_text(shown.change, activity.round))


def live(code: str, key: str) -> None:
    """Counts and results, redrawn every PROJECTOR_EVERY_S seconds (students submit without a teacher action)."""
    try:
        shown = store.projection(engine(), code, key)
    except store.ClassroomError as exc:
        st.error(markdown_escape(exc))
        return
    activity = shown.activity
    with st.container(key="proj-status"):
        st.markdown(status(shown))
    if activity is None:
        return
    if activity.kind != PREDICT:
        solved = ", ".join(
            f"problem {i} {float(s):.0%}" if s is not None else f"problem {i} –"
            for i, s in enumerate(shown.solved, start=1)
        )
        st.markdown(f"**Solved so far:** {solved}.")
        return
    visible = activity.shown or activity.revealed
    results(shown, visible, f"proj_{activity.id}_{activity.round}_{int(activity.revealed)}")
    if not visible:
        st.markdown("Responses appear here when the teacher shows them.")


def status(shown: store.Projection) -> str:
    activity = shown.activity
    if activity is None:
        return f"{shown.joined} joined · waiting for the next activity"
    round_text = f" · round {activity.round}" if activity.kind == PREDICT and activity.round > 1 else ""
    return f"**{shown.submitted} of {shown.joined} submitted**{round_text}"


def projector_page(code: str, key: str) -> None:
    try:
        shown = store.projection(engine(), code, key)
    except store.ClassroomError as exc:
        st.error(markdown_escape(exc))
        return
    klass = shown.klass
    if not klass.open:
        st.markdown(f"## Class {klass.code} has ended. Thank you for taking part.")
        return
    activity = shown.activity
    link = join_link(klass.code, klass.join_address, klass.join_key)
    left, middle, right = st.columns([1.05, 0.75, 1.6], gap="medium")
    with left:
        with st.container(key="proj-code"):
            st.markdown(klass.code)
        if link.url is not None:
            st.markdown(f"Join: **{markdown_escape(link.url)}**")
        else:
            st.markdown("Join: open the Class page of this app and type the code.")
    with middle:
        if link.url is not None and len(link.url) <= MAX_QR_LINK:
            with st.container(key="proj-qr"):
                st.image(qr_image(link.url))
    with right:
        if activity is None:
            st.markdown("### Waiting for the next activity")
        else:
            spec = activity.spec
            st.markdown(f"**Activity {activity.position}: {markdown_escape(spec.title)}**")
            if activity.kind == PREDICT:
                question = spec.question  # the same question every class screen shows (lab.teaching.class_question)
                st.markdown(markdown_escape(question.prompt))
                rows = question.pq_rows()  # (token, p, q) per token: shown one row per distribution, three rows
                st.markdown(
                    markdown_table(
                        ("token", *(r[0] for r in rows)),
                        [("target p", *(r[1] for r in rows)), ("draft q", *(r[2] for r in rows))],
                    )
                )
                if activity.revealed:  # the answer's exact values; no link or button on the big screen
                    st.markdown("**Exact answer:** " + markdown_escape("; ".join(spec.answer.exact_lines())) + ".")
            else:
                st.markdown(f"{len(spec.problems)} problems, on your phones.")
    st.fragment(run_every=PROJECTOR_EVERY_S)(live)(code, key)
    follow_teacher(klass.code, klass.version, key, follow)


st.html(PROJECTOR_CSS)
_code = str(st.query_params.get("code", ""))[:40]
_key = str(st.query_params.get(DISPLAY_PARAM, ""))[:64]
if not _key:
    st.error("This projector link has no display key: open Projector view from the teacher's dashboard.")
else:
    projector_page(_code, _key)
