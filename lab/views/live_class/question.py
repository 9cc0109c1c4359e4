"""Drawing a predict-the-bars activity on a class screen: the question (before the reveal) and the answer
(after it), from lab.teaching.class_question. The students' pages, the teacher's dashboard and the projector
view call these, so every class screen shows the same question and nothing of the answer before the reveal."""

from __future__ import annotations

import streamlit as st

from lab.charts.residual import UPRIGHT_LABELS
from lab.core.formatting import markdown_escape, markdown_table
from lab.teaching.class_question import ClassAnswer, ClassQuestion
from lab.views.shell import page_named
from lab.views.ui import language
from lab.views.ui.charts import chart, figure

PROJECTED_HEIGHT = 360  # the p / q chart's height on a projected dashboard


def draw_question(question: ClassQuestion, key: str, text_size: int | None = None, heading: str = "") -> None:
    """The prompt, then target p and draft q over the whole vocabulary: a chart with exact bar labels and their exact
    values in a table (the chart's alt text holds them too). ``text_size``: a projected screen's chart text in px
    (presentation mode), every text of the chart at that size. ``heading`` (a student's page): markdown drawn above
    as an h3, in one element with the prompt and the table, which then come before the chart: every page of a class
    draws the question at the same moment, and each element costs the server per page (docs/decisions/0002). The
    teacher's screen, often projected, keeps the chart first, under the prompt."""
    if text_size:
        fig = figure("pq_bars_projected", question.tokens, question.p, question.q, text_size, PROJECTED_HEIGHT)
    else:
        fig = _question_figure(question)
    alt, prompt, table = _question_texts(question)
    if heading:
        chart(fig, key, alt, intro=f"### {heading}\n\n{prompt}\n\n{table}")
    else:
        chart(fig, key, alt, intro=prompt)
        st.markdown(table)


def once_per_object(build):
    """``build(obj)`` made once per object and language and kept: a class's questions and answers are made once per
    source and scenario version (lab.teaching.class_question) and never modified, and every page of a class draws
    them at the same moment. Keyed by identity (hashing one would hash each of its fractions on every call) and by
    the page's language (each phone of a class speaks its own)."""
    made: dict[tuple, tuple] = {}

    def once(obj):
        key = (id(obj), language.page_code())
        hit = made.get(key)
        if hit is None or hit[0] is not obj:
            if len(made) >= 256:
                made.clear()
            hit = made[key] = (obj, build(obj))
        return hit[1]

    return once


@once_per_object
def _question_figure(question: ClassQuestion):
    """The question's p / q chart, found once per question (figure() would make its key from every fraction of p and
    q again on every page that draws it)."""
    upright = len(question.tokens) > UPRIGHT_LABELS  # on a phone, labels side by side would be a few pixels high
    return figure("pq_bars", question.tokens, question.p, question.q, False, upright)


@once_per_object
def _question_texts(question: ClassQuestion) -> tuple[str, str, str]:
    """The chart's text alternative, the prompt and the p / q table."""
    _ = language.texts()
    # each value kept left to right on a right-to-left page (1/2 (0.5), not (0.5) 1/2)
    rows = [(t, language.exact_and_decimal(a, 3), language.exact_and_decimal(b, 3))
            for t, a, b in zip(question.tokens, question.p, question.q)]  # fmt: skip
    table = markdown_table((_("token"), _("target p"), _("draft q")), rows)
    return language.say(question.pq_alt()), f"**{markdown_escape(language.say(question.prompt))}**", table


def draw_answer(answer: ClassAnswer, *, lab_link: bool = True) -> None:
    """The exact answer (only after the teacher's reveal): the fields' exact values, Z, the Binomial lab's
    setting with the same bars (with ``lab_link``, a link that opens it), the reconstruction min(p, q) + Z·r = p
    per token, and the scenario's explanation."""
    _ = language.texts()
    for part in _answer_parts(answer):
        st.markdown(part)
    if answer.lab_link is not None and lab_link:
        st.page_link(
            page_named(answer.lab_link.page).file,
            label=_("Open the Binomial lab there"),
            query_params=answer.lab_link.params,
            icon=":material/casino:",
        )
    st.markdown(reconstruction_markdown(answer))


def reconstruction_markdown(answer: ClassAnswer) -> str:
    """The reconstruction min(p, q) + Z·r = p per token (with two candidates: kept at candidate 1 + kept at candidate 2
    + correction = p), and the scenario's explanation, as one markdown."""
    _ = language.texts()
    sum_words = _(answer.sum_words)
    verdict = (
        _("**Reconstruction:** {sum} gives p for every token.", sum=sum_words)
        if answer.recovers_target
        else _("**Reconstruction:** {sum} does NOT give p.", sum=sum_words)
    )
    header = tuple(_(cell) for cell in answer.reconstruction_header())  # the maths' cells are no message: as they are
    text = verdict + "\n\n" + markdown_table(header, answer.reconstruction_cells())
    return text + (f"\n\n{markdown_escape(language.say(answer.explanation))}" if answer.explanation else "")


@once_per_object
def answer_markdown(answer: ClassAnswer) -> str:
    """:func:`draw_answer` without the link to the Binomial lab, as one markdown (a student's page during the class
    draws it at the moment of the reveal, with every other page of the class)."""
    return "\n\n".join([*_answer_parts(answer), reconstruction_markdown(answer)])


def _answer_parts(answer: ClassAnswer) -> list[str]:
    """The fields' exact values, and the Binomial lab's setting with the same bars (when there is one)."""
    _ = language.texts()
    lines = "; ".join(language.say(line) for line in answer.exact_lines(language.decimal_comma()))
    parts = [_("**Exact answer:** {lines}.", lines=markdown_escape(lines))]
    if answer.lab_link is not None:
        parts.append(markdown_escape(_(
            "{first} and {second} are {setting}.",
            first=answer.fields[0], second=answer.fields[1], setting=language.say(answer.lab_link.text),
        )))
    return parts
