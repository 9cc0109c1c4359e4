"""Projector view: the class on the big screen, for the room. Opened from the teacher's dashboard (Projector
view); its link carries the class code and the class's display-only key, which can do nothing but show this
page: the class code in very large type, the QR code of the join link, the question, how many submitted, the
round's results (the distribution once the teacher shows the responses; the exact answer over it, the share
within 0.05 and the most common wrong pattern after the reveal). Never a name, the teacher link or a control.

It follows the teacher as a student's page does (lab.views.live_class.follow, with the display key: a full redraw when
the teacher acts) and redraws its counts and results every PROJECTOR_EVERY_S seconds (a fragment, one query).
Laid out for 1920x1080 and 1280x720 without scrolling: the results chart's height is a share of the window's.

URL: ``/projector?code=C&display=KEY``.
"""

from __future__ import annotations

import streamlit as st

from lab.charts.classroom import EXACT_LABELS_UP_TO
from lab.charts.residual import PROJECTED_LABELS, UPRIGHT_LABELS
from lab.classroom.actions import Projection, projection
from lab.classroom.activities import PREDICT
from lab.core.formatting import fraction_text, markdown_escape, with_decimal
from lab.i18n import N_
from lab.views.live_class.database import class_version, engine
from lab.views.live_class.follow import follow_teacher
from lab.views.live_class.join_link import join_link
from lab.views.live_class.once_per_server import qr_image
from lab.views.live_class.results import (
    change_text,
    pattern_text,
    pattern_text_short,
    results_chart,
    within_text,
    within_text_short,
)
from lab.views.ui import language
from lab.views.ui.accessibility import announce, section, title
from lab.views.ui.charts import chart, figure
from lab.views.ui.countdown import countdown
from lab.views.ui.presentation import (
    DISPLAY_PARAM,
    PROJECTOR_CSS,
    PROJECTOR_PAIR_TEXT_PX,
    PROJECTOR_PQ_TEXT_PX,
    PROJECTOR_TEXT_PX,
    address_fit_key,
)

PROJECTOR_EVERY_S = 2.0
MAX_QR_LINK = 2000
LIVE = "proj"  # the page's live region (lab.views.ui.accessibility.announce)
PROJECTOR_COUNTDOWN = "proj_countdown"
PAIR_UP_TO = 4  # two rounds side by side up to this many predicted values
LONG_ANSWER = 60  # an exact answer longer than this (with its decimals) is written in fractions, in smaller type
LONGER_ANSWER = 120  # and longer than this, as one list in the order of the bars
# the legend of the two rounds' charts, said once above them (each chart drawn without one)
KEY_TEXT = N_("Dots: predictions, in a box · solid line: class mean · dashed line and diamond: the exact answer")


def follow(code: str, drawn_version: int) -> None:
    """Without the HTTP route: rerun the page when the teacher acted (as the student's page does)."""
    current = class_version(code)
    if current is None or not current.open or current.version > drawn_version:
        st.rerun()


def results(shown: Projection, visible: bool, key: str) -> None:
    """The round's chart(s), full width: Round 1 and Round 2 side by side once a second round is open (up to
    PAIR_UP_TO values: more would not fit half a screen; then the current round alone, and the line on how the class
    moved says the rest)."""
    _ = language.texts()
    activity = shown.activity
    revealed = activity.revealed
    now = _("Round {round}", round=activity.round)
    rounds = [(_("Round {round}", round=activity.round - 1), shown.earlier), (now, shown.predict)]
    pair = shown.earlier is not None and len(activity.spec.fields) <= PAIR_UP_TO
    rounds = rounds if pair else [(now, shown.predict)]
    if visible and len(rounds) > 1:
        st.markdown(_(KEY_TEXT))
    columns = st.columns(len(rounds), gap="large") if len(rounds) > 1 else [st.container()]
    state = "revealed" if revealed else "shown"
    text_px = PROJECTOR_TEXT_PX if len(rounds) == 1 else PROJECTOR_PAIR_TEXT_PX  # two charts side by side: 22 px
    for i, (column, (label, summary)) in enumerate(zip(columns, rounds)):
        with column:
            if not visible:
                continue
            if summary.submitted == 0:
                st.markdown(_("**{round}:** no predictions yet.", round=label))
                continue
            with st.container(key=f"proj-round-{i}"):  # each round's chart titled above it
                st.markdown(_("**{round}** · {count} of {total} submitted", round=label, count=summary.submitted,
                              total=shown.joined))
            crowded = "-crowded" if len(summary.fields) > EXACT_LABELS_UP_TO else ""  # names on end: taller
            moved = "-moved" if shown.earlier is not None and len(rounds) == 1 else ""  # a line on the rounds follows
            with st.container(key=f"proj-chart-{len(rounds)}-{state}-{i}{crowded}{moved}"):  # height: PROJECTOR_CSS
                results_chart(
                    summary,
                    revealed,
                    f"{key}_{i}",
                    "stretch",
                    text_px,
                    label,
                    legend=len(rounds) == 1,  # side by side: no legend (KEY_TEXT says it once), room for the labels
                )
            if revealed:
                pair = len(rounds) > 1
                change = [change_text(shown.change, activity.round)] if moved and shown.change is not None else []
                st.markdown(  # one element (the line on the rounds too, when it is alone): no gap between them
                    "  \n".join([
                        within_text_short(summary) if pair else within_text(summary, per_value=not moved),
                        pattern_text_short(summary) if pair else pattern_text(summary, looked_for=False),
                        *change,
                    ])
                )  # fmt: skip
    if visible and revealed and shown.change is not None and len(rounds) > 1:
        st.markdown(change_text(shown.change, activity.round))


def live(code: str, key: str) -> None:
    """Counts and results, redrawn every PROJECTOR_EVERY_S seconds (students submit without a teacher action)."""
    _ = language.texts()
    read = projection(engine, code, key)
    if read.refused is not None:
        st.error(markdown_escape(language.say(read.refusal)))
        return
    if read.down:
        st.warning(language.say(read.refusal))  # this part is redrawn every few seconds: it comes back by itself
        return
    shown = read.value
    activity = shown.activity
    if activity is None or not (activity.shown or activity.revealed):  # then each round's title says how many voted
        # what the room reads while it waits: how many have joined, then how many have submitted
        waiting_for_results = activity is not None and activity.kind == PREDICT and not activity.shown
        size = "wait" if activity is None else "big" if waiting_for_results else "normal"
        with st.container(key=f"proj-status-{size}"):
            st.markdown(status(shown))
    if activity is None:
        return
    if activity.kind != PREDICT:
        solved = ", ".join(
            _("problem {number} {share}", number=i, share=language.number(float(s), ".0%")) if s is not None
            else _("problem {number} –", number=i)
            for i, s in enumerate(shown.solved, start=1)
        )  # fmt: skip
        st.markdown(_("**Solved so far:** {problems}.", problems=solved))
        return
    visible = activity.shown or activity.revealed
    results(shown, visible, f"proj_{activity.id}_{activity.round}_{int(activity.revealed)}")
    if not visible:
        st.markdown(_("Responses appear here when the teacher shows them."))


def status(shown: Projection) -> str:
    _ = language.texts()
    activity = shown.activity
    if activity is None:
        return _("{count} joined · waiting for the next activity", count=shown.joined)
    if activity.kind == PREDICT and activity.round > 1:
        return _("**{count} of {total} submitted** · round {round}", count=shown.submitted, total=shown.joined,
                 round=activity.round)
    return _("**{count} of {total} submitted**", count=shown.submitted, total=shown.joined)


def announcement(shown: Projection) -> str:
    """What the page's polite live region says: the state the teacher's last action brought (the page redraws
    on each one), so a screen reader on this page hears responses shown, a new round and the reveal."""
    _ = language.texts()
    activity = shown.activity
    if activity is None:
        return _("No activity is open now.")  # (the page's heading says "Waiting for the next activity")
    title = language.say(activity.spec.title)
    if activity.kind != PREDICT:
        return _("Activity {number} is open: {title}.", number=activity.position, title=title)
    if activity.revealed:
        lines = "; ".join(language.say(line) for line in activity.spec.answer.exact_lines(language.decimal_comma()))
        return _("The exact answer is revealed: {lines}.", lines=lines)
    if activity.timed_out:
        return _("Time is up: the vote is locked.")
    if activity.shown:
        return _("Round {round}: the class's responses are shown.", round=activity.round)
    if activity.round > 1:
        return _("Round {round}: vote again.", round=activity.round)
    return _("Activity {number} is open: {title}.", number=activity.position, title=title)


def join_line(link) -> None:
    """The join link on one line across the page, as plain text: exactly what the QR code holds (no markdown,
    which could change characters of an address)."""
    if link.url is None:
        return
    _ = language.texts()
    with st.container(key="proj-join", horizontal=True, gap="small"):
        st.markdown(_("**Join link:**"), width="content")
        st.text(link.url)


def wait_and_redraw(code: str, key: str) -> None:
    """While the database is away: try every RETRY_EVERY_S, redraw the whole page once it answers."""
    if not projection(engine, code, key).down:
        st.rerun()


RETRY_EVERY_S = 3.0


def typed_address(link) -> None:
    """Beside the code, in large type: the address students type (the Class page's, without the link's key),
    as inline code (no autolink: nothing on the big screen is a link), or that none is set yet."""
    _ = language.texts()
    with st.container(key="proj-address"):
        if link.typed:  # the app's address, then its Class page on a line of its own (no break inside a number)
            root, page = link.typed.replace("`", "%60").rsplit("/", 1)
            with st.container(key=address_fit_key([root, f"/{page}"])):
                st.markdown(
                    _("Go to  \n{address}  \n{page} and type the code", address=f"`{root}`", page=f"`/{page}`")
                )
        else:
            st.markdown(_("No address for students is set yet: set it on the teacher's dashboard."))


def top_band(klass, activity, link, results_up: bool) -> None:
    """The code and the address to type, the QR code, the question's chart; while waiting the code and the QR code
    fill the screen, and once results take the lower part the top band is smaller (PROJECTOR_CSS)."""
    _ = language.texts()
    predict = activity is not None and activity.kind == PREDICT
    state = "wait" if activity is None else "results" if results_up else "open"
    top = st.container(key=f"proj-top-{state}")
    if activity is None:
        left, middle = top.columns([1.1, 1], gap="large", vertical_alignment="center")
        right = None
    elif predict and len(activity.spec.question.tokens) > PROJECTED_LABELS:
        # the chart gets a band of its own while the vote is open; once results are up they take the room (the
        # phones hold the question)
        left, middle = top.columns([1.2, 1.0], gap="medium", vertical_alignment="center")
        right = st.container(key=f"proj-pq-wide-{state}") if not results_up else None
    else:
        # many tokens: the p / q chart gets more of the width, so that each bar is wider than its label on end
        many = predict and len(activity.spec.question.tokens) > UPRIGHT_LABELS
        widths = [1.3, 0.7, 2.0] if many else [1.2, 1.0, 1.5]  # the code's column keeps its share (the address)
        left, middle, right = top.columns(widths, gap="medium", vertical_alignment="center")
    with left:
        with st.container(key="proj-code"):
            # the code is from the code alphabet: no markdown character
            title(_("Class code {code}", code=f"**{klass.code}**"))
        typed_address(link)
        if activity is None:  # waiting: the join link and the state under the code, the QR code beside them
            join_line(link)
            with st.container(key="proj-question"):
                section(_("Waiting for the next activity"))
    with middle:
        if link.url is not None and len(link.url) <= MAX_QR_LINK:
            with st.container(key="proj-qr"):
                st.image(qr_image(link.url), alt=_("QR code of the join link shown below it"))
    if right is not None and predict:
        with right:
            question = activity.spec.question  # what every class screen shows (lab.teaching.class_question)
            with st.container(key="proj-pq"):  # its height: PROJECTOR_CSS
                chart(
                    figure("pq_bars_projected", question.tokens, question.p, question.q, PROJECTOR_PQ_TEXT_PX),
                    f"proj_pq_{activity.id}",
                    language.say(question.pq_alt()),
                    height="stretch",
                )


def question_band(activity, results_up: bool) -> None:
    """The activity's title and prompt (until results are up), and its exact answer once revealed, the largest
    text; no link or button."""
    _ = language.texts()
    spec = activity.spec
    with st.container(key="proj-question"):
        left = activity.seconds_left()
        # the countdown on the title's line (when it ends the page runs again and says the vote is locked)
        with st.container(key="proj-heading", horizontal=True, vertical_alignment="center", gap="large"):
            section(_("Activity {number}: {title}", number=activity.position,
                      title=markdown_escape(language.say(spec.title))))
            if left is not None and not activity.revealed:
                with st.container(key="proj-countdown", width="content"):
                    countdown(left, PROJECTOR_COUNTDOWN)
        if activity.kind != PREDICT:
            st.markdown(_.ngettext("{count} problem, on your phones.", "{count} problems, on your phones.",
                                   len(spec.problems), count=len(spec.problems)))
            return
        if not results_up:  # once results are up the chart above and the phones hold the question
            with st.container(key="proj-prompt"):
                st.markdown(markdown_escape(language.say(spec.question.prompt)))
        if activity.revealed:
            answer = spec.answer
            comma = language.decimal_comma()
            asked = "; ".join(
                f"{f} = {with_decimal(e, 3, decimal_comma=comma)}" for f, e in zip(answer.fields, answer.exact)
            )
            size = "proj-exact"
            if len(asked) > LONG_ANSWER:  # many values: fractions only, in smaller type (two lines at most)
                asked = "; ".join(f"{f} = {fraction_text(e)}" for f, e in zip(answer.fields, answer.exact))
                size = "proj-exact-long"
            if len(asked) > LONGER_ANSWER:  # more still: the values in the order of the bars
                asked = compact_answer(spec)
            with st.container(key=size):
                st.markdown(_("**Exact answer:** {values}", values=language.isolated(markdown_escape(asked))))


def compact_answer(spec) -> str:
    """The exact answer in the order of the bars: "r = (0, 1/3, …) for the, a, …; Z = 3/10"."""
    _ = language.texts()
    answer = spec.answer
    bars = f"{spec.symbol} = ({', '.join(fraction_text(e) for f, e in zip(answer.fields, answer.exact) if f != 'Z')})"
    z = [fraction_text(e) for f, e in zip(answer.fields, answer.exact) if f == "Z"]
    if z:
        return _("{values}, in the order of the bars; Z = {z}", values=bars, z=z[0])
    return _("{values}, in the order of the bars", values=bars)


def projector_page(code: str, key: str) -> None:
    _ = language.texts()
    read = projection(engine, code, key)
    if read.refused is not None:
        title(_("Projector view"))
        st.error(markdown_escape(language.say(read.refusal)))
        return
    if read.down:
        title(_("Projector view"))
        st.warning(language.say(read.refusal))
        st.fragment(run_every=RETRY_EVERY_S)(wait_and_redraw)(code, key)
        return
    shown = read.value
    klass = shown.klass
    if not klass.open:
        title(_("Class {code} has ended", code=klass.code))
        st.markdown(_("Thank you for taking part."))
        return
    activity = shown.activity
    link = join_link(klass.code, klass.join_address, klass.join_key)
    results_up = activity is not None and activity.kind == PREDICT and (activity.shown or activity.revealed)
    top_band(klass, activity, link, results_up)
    if activity is not None:
        if not results_up:  # the results need the room; the QR code and address stay
            join_line(link)
        question_band(activity, results_up)
    announce(LIVE, announcement(shown))
    st.fragment(run_every=PROJECTOR_EVERY_S)(live)(code, key)
    follow_teacher(klass.code, klass.version, key, follow)


def main() -> None:
    st.html(PROJECTOR_CSS)
    code = str(st.query_params.get("code", ""))[:40]  # longer text is no code or key: cut before any lookup
    key = str(st.query_params.get(DISPLAY_PARAM, ""))[:64]
    _ = language.texts()
    if not key:
        title(_("Projector view"))
        st.error(_("This projector link has no display key: open Projector view from the teacher's dashboard."))
    else:
        projector_page(code, key)


main()
